/** `GET`/`PUT /subscriptions`: the preference centre's API. The caller is either an identified
 * visitor (their `svcutk` → the contact's email) or holds a signed preference link (`?token=`).
 * Changes need the CSRF token of the same person (from the GET), a JSON body, and — when the
 * browser sends one — an allowed `Origin`. The email itself is never sent back, only masked. */
import type { Client } from '@svc/client';
import { PREFERENCE_TOKEN_PARAM, sign, verify } from '@svc/protocol/signed-token';
import { isJson, jsonBody } from '../http/body';
import { HttpError, invalidAnswer, isObject } from '../http/errors';
import { privateJson, type CoreRequest, type Reply } from '../http/exchange';
import { TtlCache } from '../ttl-cache';
import { visitorUtk } from '../utk';
import type { Visitors } from '../visitor';

export interface SubscriptionType {
  id: number;
  name: string;
  description: string;
  subscribed: boolean;
}

export interface Preferences {
  /** Masked, e.g. `a•••@example.com`. */
  email: string;
  unsubscribedFromAll: boolean;
  types: SubscriptionType[];
  /** Send back as `X-CSRF-Token` with a PUT. */
  csrfToken: string;
}

const CSRF_TTL_MS = 2 * 60 * 60 * 1000;

export const maskEmail = (email: string) => {
  const [user, domain] = email.split('@');
  return `${user.slice(0, 1)}•••@${domain ?? ''}`;
};

/** The page's own origin: its host is the request's. Only the host is compared, since behind a
 * TLS-terminating proxy (without `trust proxy`) the companion sees http where the browser says https. */
function sameHost(origin: string, host: string | undefined) {
  try {
    return host !== undefined && new URL(origin).host == host;
  } catch {
    return false;
  }
}

export interface SubscriptionOptions {
  linkSecret: string;
  allowedOrigins: Set<string>;
  now: () => number;
  timeoutMs: number;
}

export function subscriptions(client: Client, visitors: Visitors, o: SubscriptionOptions) {
  const typesCache = new TtlCache<{ id: number; name: string; description: string }[]>(60_000, 1, o.now);
  const signal = () => AbortSignal.timeout(o.timeoutMs);

  const types = () =>
    typesCache.get('types', async () => {
      const answer: unknown = await client.email.subscriptionTypes(undefined, { signal: signal() });
      if (!isObject(answer) || !Array.isArray(answer.subscriptionDefinitions)) throw invalidAnswer();
      return (
        answer.subscriptionDefinitions as {
          id: number;
          name: string;
          description: string;
          active: boolean;
          internal?: boolean;
        }[]
      )
        .filter((t) => t.active && !t.internal)
        .map((t) => ({ id: t.id, name: t.name, description: t.description }));
    });

  /** Whose preferences: the link's address, or the identified visitor's. */
  async function whose(req: CoreRequest): Promise<string> {
    // Given twice, the token is a list, which no link is.
    const given = new URLSearchParams(req.search).getAll(PREFERENCE_TOKEN_PARAM);
    const token = given.length > 1 ? given : given[0];
    if (token !== undefined) {
      const v = verify(o.linkSecret, 'preferences', token, o.now());
      if (v.ok) return v.subject;
      throw new HttpError(
        401,
        v.reason == 'expired'
          ? 'this preference link has expired; use the link in a newer email'
          : 'this preference link is not valid',
      );
    }
    const utk = visitorUtk(req.cookies());
    const visitor = utk ? await visitors.lookup(utk) : undefined;
    if (!visitor?.email) throw new HttpError(401, 'open the preference centre through the link in one of our emails');
    return visitor.email;
  }

  async function state(email: string): Promise<Preferences> {
    const [all, status] = await Promise.all([types(), client.email.getStatus(email, undefined, { signal: signal() })]);
    if (!isObject(status) || !Array.isArray(status.subscriptionStatuses)) throw invalidAnswer();
    const unsubscribedFromAll = status.unsubscribeFromPortal;
    const byId = new Map(status.subscriptionStatuses.map((s) => [s.id, s.subscribed]));
    return {
      email: maskEmail(email),
      unsubscribedFromAll,
      types: all.map((t) => ({ ...t, subscribed: !unsubscribedFromAll && (byId.get(t.id) ?? true) })),
      csrfToken: sign(o.linkSecret, 'csrf', email, o.now() + CSRF_TTL_MS),
    };
  }

  function checkCsrf(req: CoreRequest, email: string) {
    const origin = req.header('origin');
    if (
      origin !== undefined &&
      !o.allowedOrigins.has(origin) &&
      !sameHost(origin, req.header('host') ?? new URL(req.url).host)
    )
      throw new HttpError(403, 'this origin may not change preferences');
    const v = verify(o.linkSecret, 'csrf', req.header('x-csrf-token'), o.now());
    if (!v.ok || v.subject != email)
      throw new HttpError(
        403,
        'missing or invalid CSRF token: send the csrfToken from GET /subscriptions as X-CSRF-Token',
      );
  }

  /** The body: `{subscriptions: [{id, subscribed}]}` or `{unsubscribeFromAll: true}`. */
  function change(body: unknown, known: Set<number>) {
    if (!body || typeof body != 'object' || Array.isArray(body))
      throw new HttpError(400, 'body: must be a JSON object');
    const b = body as Record<string, unknown>;
    for (const k of Object.keys(b))
      if (k != 'subscriptions' && k != 'unsubscribeFromAll')
        throw new HttpError(400, `body.${k.slice(0, 40)}: is not a field; use subscriptions or unsubscribeFromAll`);
    if (b.unsubscribeFromAll !== undefined) {
      if (b.unsubscribeFromAll !== true) throw new HttpError(400, 'body.unsubscribeFromAll: must be true');
      if (b.subscriptions !== undefined)
        throw new HttpError(400, 'body: give subscriptions or unsubscribeFromAll, not both');
      return { unsubscribeFromAll: true as const, subscriptions: undefined };
    }
    if (!Array.isArray(b.subscriptions) || b.subscriptions.length == 0 || b.subscriptions.length > 100)
      throw new HttpError(400, 'body.subscriptions: must be a list of 1 to 100 {id, subscribed}');
    const subs = b.subscriptions.map((s: unknown, i) => {
      const e = s as { id?: unknown; subscribed?: unknown } | null;
      if (!e || typeof e != 'object') throw new HttpError(400, `body.subscriptions[${i}]: must be an object`);
      if (typeof e.id != 'number' || !known.has(e.id))
        throw new HttpError(400, `body.subscriptions[${i}].id: is not a subscription type`);
      if (typeof e.subscribed != 'boolean')
        throw new HttpError(400, `body.subscriptions[${i}].subscribed: must be true or false`);
      return { id: e.id, subscribed: e.subscribed };
    });
    return { subscriptions: subs };
  }

  return {
    async get(req: CoreRequest): Promise<Reply> {
      return privateJson(await state(await whose(req)));
    },
    async put(req: CoreRequest): Promise<Reply> {
      // Read first, as a body parser in front would: a broken body is a 400 whoever sends it.
      const body = await jsonBody(req);
      const email = await whose(req);
      checkCsrf(req, email);
      if (!isJson(req)) throw new HttpError(415, 'send the change as application/json');
      const wanted = change(body, new Set((await types()).map((t) => t.id)));
      const before = await state(email);
      if (wanted.subscriptions) {
        if (before.unsubscribedFromAll && wanted.subscriptions.some((s) => s.subscribed))
          throw new HttpError(409, 'this address unsubscribed from all emails, which cannot be undone here');
        await client.email.updateStatus(
          email,
          {
            subscriptionStatuses: wanted.subscriptions.map((s) => ({
              ...s,
              optState: s.subscribed ? 'OPT_IN' : 'OPT_OUT',
            })),
          },
          { signal: signal() },
        );
      } else if (!before.unsubscribedFromAll)
        await client.email.updateStatus(email, { unsubscribeFromAll: true }, { signal: signal() });
      return privateJson(await state(email));
    },
  };
}
