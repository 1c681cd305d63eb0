/** A typed client of the admin API (src/admin/), over fetch: what startTwin hands a test, and
 * what any Node test can make from SVC_ADMIN_URL and SVC_ADMIN_KEY. A refusal rejects with an
 * AdminError carrying the status and the API's message. */
import type { PortalCredentials, Tier } from './store/portals';
import type { FaultSpec } from './http/faults';
import type { JournalEntry, JournalFilter } from './http/journal';
import type { IssuedToken } from './services/token-outbox';

export class AdminError extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'AdminError';
  }
}

export interface AdminPortal {
  portalId: number;
  name: string;
  tier: Tier;
  createdAt: number;
}
export interface FaultRuleListed extends FaultSpec {
  id: string;
  remaining: number | null;
  fired: number;
}
export interface CaughtEmailListed {
  id: number;
  portalId: number;
  to: string;
  from: string;
  subject: string;
  sentAt: number;
  campaignId: number;
  workflowId: number | null;
  workflowName: string | null;
  vid: number | null;
  preferenceLink: boolean;
  text: string;
  html: string;
}
export interface WebhookListed {
  id: number;
  eventId: string;
  portalId: number;
  workflowId: number;
  vid: number;
  method: string;
  url: string;
  body: string;
  status: 'pending' | 'delivered' | 'failed';
  createdAt: number;
  nextAt: number | null;
  lastOutcome: string | null;
  attempts: { outcome: 'delivered' | 'retry' | 'failed'; at: number; detail: string | null }[];
}

/** The platform's time: ms since the epoch, and ISO 8601. */
export interface ClockTime {
  now: number;
  iso: string;
}
/** After a move: the time, and how many due times the clock stopped at on the way. */
export interface ClockMoved extends ClockTime {
  stops: number;
}
export interface SnapshotImported {
  imported: { tables: number; rows: number; files: number };
  /** The platform's time after it (a later snapshot's time brings the clock to it). */
  now: number;
}

type Query = Record<string, string | number | undefined>;
const qs = (query: Query = {}) => {
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(query)) if (v !== undefined) params.set(k, String(v));
  const s = params.toString();
  return s ? `?${s}` : '';
};

/** `adminUrl`: `{base_url}/_admin`. */
export function adminClient(adminUrl: string, adminKey: string) {
  /** A request; bytes (a snapshot) are sent as they are, anything else as JSON. */
  async function send(method: string, path: string, body?: unknown) {
    const bytes = body instanceof Uint8Array;
    const res = await fetch(`${adminUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${adminKey}`,
        ...(body !== undefined && { 'content-type': bytes ? 'application/gzip' : 'application/json' }),
      },
      body: body === undefined ? undefined : bytes ? new Uint8Array(body) : JSON.stringify(body),
    });
    if (!res.ok) await refused(res);
    return res;
  }
  async function refused(res: Response): Promise<never> {
    const text = await res.text();
    let message: string | undefined;
    try {
      message = (JSON.parse(text) as { message?: string }).message;
    } catch {
      message = undefined;
    }
    throw new AdminError(res.status, message ?? `status ${res.status}`);
  }
  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await send(method, path, body);
    const text = await res.text();
    return (text ? JSON.parse(text) : undefined) as T;
  }
  return {
    portals: {
      list: async () => (await call<{ portals: AdminPortal[] }>('GET', '/portals')).portals,
      create: (portal: { portalId?: number; name?: string; tier?: Tier } = {}) =>
        call<PortalCredentials>('POST', '/portals', portal),
      delete: (portalId: number) => call<void>('DELETE', `/portals/${portalId}`),
      reset: (portalId: number) =>
        call<{ portalId: number; name: string; tier: Tier; credentialsKept: true }>(
          'POST',
          `/portals/${portalId}/reset`,
        ),
    },
    faults: {
      list: async () => (await call<{ faults: FaultRuleListed[] }>('GET', '/faults')).faults,
      /** Appends a rule; resolves to its id. */
      add: async (rule: FaultSpec) => (await call<{ id: string }>('POST', '/faults', rule)).id,
      remove: (id: string) => call<void>('DELETE', `/faults/${encodeURIComponent(id)}`),
      clear: () => call<void>('DELETE', '/faults'),
    },
    journal: {
      list: async (filter: JournalFilter = {}) =>
        (await call<{ requests: JournalEntry[] }>('GET', `/journal${qs({ ...filter })}`)).requests,
      count: async (filter: Omit<JournalFilter, 'limit'> = {}) =>
        (await call<{ count: number }>('GET', `/journal/count${qs({ ...filter })}`)).count,
      clear: () => call<void>('DELETE', '/journal'),
    },
    outbox: {
      emails: async (filter: { portalId?: number; to?: string; limit?: number } = {}) =>
        (await call<{ emails: CaughtEmailListed[] }>('GET', `/outbox/emails${qs(filter)}`)).emails,
      clearEmails: async (portalId?: number) =>
        (await call<{ cleared: number }>('DELETE', `/outbox/emails${qs({ portalId })}`)).cleared,
      webhooks: async (filter: { portalId?: number; status?: WebhookListed['status']; limit?: number } = {}) =>
        (await call<{ webhooks: WebhookListed[] }>('GET', `/outbox/webhooks${qs(filter)}`)).webhooks,
      clearWebhooks: async (portalId?: number) =>
        (await call<{ cleared: number }>('DELETE', `/outbox/webhooks${qs({ portalId })}`)).cleared,
      tokens: async (filter: { portalId?: number; clientId?: string; limit?: number } = {}) =>
        (await call<{ tokens: IssuedToken[] }>('GET', `/outbox/tokens${qs(filter)}`)).tokens,
      clearTokens: async (portalId?: number) =>
        (await call<{ cleared: number }>('DELETE', `/outbox/tokens${qs({ portalId })}`)).cleared,
    },
    /** The admin API's OpenAPI document. */
    openApi: () => call<Record<string, unknown>>('GET', '/openapi.json'),
    clock: {
      /** The platform's time. */
      get: () => call<ClockTime>('GET', '/clock'),
      /** Moves the clock on by `ms`, running what falls due on the way, in time order; resolves
       * once all of it has run. */
      advance: (ms: number) => call<ClockMoved>('POST', '/clock', { advanceMs: ms }),
      /** Moves the clock to `at` (ms, ISO 8601 or a Date; never back) the same way. */
      set: (at: number | string | Date) =>
        call<ClockMoved>('POST', '/clock', { now: at instanceof Date ? at.toISOString() : at }),
    },
    snapshot: {
      /** The whole state (every portal, files included) as a snapshot file's bytes (gzip). */
      export: async () => new Uint8Array(await (await send('GET', '/snapshot')).arrayBuffer()),
      /** Replaces the whole state with a snapshot file's bytes, atomically. */
      import: (file: Uint8Array) => call<SnapshotImported>('PUT', '/snapshot', file),
    },
  };
}

export type AdminClient = ReturnType<typeof adminClient>;
