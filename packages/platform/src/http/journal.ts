/** The admin API's request journal: the last `size` requests to both servers, newest last, in a
 * ring buffer (memory stays bounded whatever the traffic: WireMock's journal without a bound was
 * its users' out-of-memory). An entry never holds a secret: the path's query keeps its names but
 * drops the values of credentials (`hapikey`, `access_token`, …), and no header is kept. */

export interface JournalEntry {
  seq: number;
  /** When it came, by the platform's clock (ms since the epoch). */
  at: number;
  server: 'base' | 'forms';
  method: string;
  /** The path and query, credentials' values replaced by `[redacted]`. */
  path: string;
  /** The catalog route id, or null (an unknown path, a page). */
  route: string | null;
  portalId: number | null;
  /** The status answered; null when the connection was dropped before an answer. */
  status: number | null;
  durationMs: number;
  /** The fault rule that changed the answer (`header` for an X-Svc-Fault header). */
  fault?: string;
}

export interface JournalFilter {
  route?: string;
  portalId?: number;
  status?: number;
  limit?: number;
}

/** Query parameters whose values are credentials. */
const SECRET_PARAMS = /^(hapikey|access_token|refresh_token|client_secret|code|token|key)$/i;

/** `url` with the values of credential parameters replaced (names kept: a test may check that a
 * client sent one). */
export function redactedPath(url: string) {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const params = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        // kept as sent
      }
      return eq >= 0 && SECRET_PARAMS.test(decoded) ? `${name}=[redacted]` : pair;
    });
  return `${url.slice(0, q)}?${params.join('&')}`;
}

export const DEFAULT_JOURNAL_SIZE = 1000;

export function requestJournal(size = DEFAULT_JOURNAL_SIZE) {
  if (!Number.isInteger(size) || size < 0)
    throw new TypeError(`the journal keeps a whole number of requests (0 turns it off), not ${size}`);
  const ring: (JournalEntry | undefined)[] = new Array<JournalEntry | undefined>(size);
  let next = 0;
  let seq = 0;
  const matches = (e: JournalEntry, f: JournalFilter) =>
    (f.route === undefined || e.route == f.route) &&
    (f.portalId === undefined || e.portalId == f.portalId) &&
    (f.status === undefined || e.status == f.status);
  /** Oldest first. */
  const entries = () => {
    const out: JournalEntry[] = [];
    for (let i = 0; i < size; i++) {
      const e = ring[(next + i) % size];
      if (e) out.push(e);
    }
    return out;
  };
  return {
    size,
    record(e: Omit<JournalEntry, 'seq'>) {
      if (!size) return;
      ring[next] = { seq: ++seq, ...e };
      next = (next + 1) % size;
    },
    /** The matching entries, newest first, at most `limit`. */
    list(f: JournalFilter = {}) {
      const found = entries()
        .filter((e) => matches(e, f))
        .reverse();
      return f.limit === undefined ? found : found.slice(0, f.limit);
    },
    count: (f: JournalFilter = {}) => entries().filter((e) => matches(e, f)).length,
    clear() {
      ring.fill(undefined);
      next = 0;
    },
  };
}

export type RequestJournal = ReturnType<typeof requestJournal>;
