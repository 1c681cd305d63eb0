/** A real platform for tests: in-memory SQLite, both servers on random ports, portals with
 * credentials, a movable clock, and a small fetch helper. Closed by the test's afterAll. */
import { createPlatform, createPortal, issuePortalCredentials, type PlatformOptions, type PortalCredentials, type Tier } from '../src';

export interface TestPortal extends PortalCredentials {
  /** `Authorization` header with the private-app token. */
  auth: { authorization: string };
}

export async function startPlatform(options: PlatformOptions & { portals?: { id: number; tier?: Tier }[] } = {}) {
  const clock = { now: Date.now() };
  const platform = createPlatform({ database: ':memory:', logger: false, checkResponses: true, now: () => clock.now, ...options });
  const { baseUrl, formsUrl } = await platform.listen({ basePort: 0, formsPort: 0 });
  const { engine } = platform.services;
  const portals: TestPortal[] = [];
  for (const { id, tier = 'enterprise' } of options.portals ?? [{ id: 62515 }, { id: 99999 }]) {
    await createPortal(engine, platform.services, { id, name: `portal ${id}`, tier, now: clock.now });
    const creds = await issuePortalCredentials(engine, id, clock.now);
    portals.push({ ...creds, auth: { authorization: `Bearer ${creds.privateAppToken}` } });
  }

  /** fetch on {base_url} (or a full URL) with the portal's token; JSON bodies are encoded. */
  function call(method: string, path: string, { body, headers, portal = portals[0] }: { body?: unknown; headers?: Record<string, string>; portal?: TestPortal | null } = {}) {
    return fetchJson(path.startsWith('http') ? path : baseUrl + path, { method, body, headers: { ...(portal ? portal.auth : {}), ...headers } });
  }

  return { platform, baseUrl, formsUrl, portals, clock, call, close: () => platform.close() };
}

export type TestPlatform = Awaited<ReturnType<typeof startPlatform>>;

/** fetch without following redirects: a body that is not a string is sent as JSON; the answer's
 * JSON is decoded (undefined when it is not JSON). Shared with the companion's tests. */
export async function fetchJson(url: string, { method = 'GET', body, headers = {} }: { method?: string; body?: unknown; headers?: Record<string, string> } = {}) {
  const asJson = body !== undefined && typeof body != 'string';
  const res = await fetch(url, {
    method,
    headers: { ...(asJson ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : asJson ? JSON.stringify(body) : (body as string),
    redirect: 'manual',
  });
  const text = await res.text();
  let json: any; // eslint-disable-line @typescript-eslint/no-explicit-any
  try {
    json = text ? JSON.parse(text) : undefined;
  } catch {
    json = undefined;
  }
  return { status: res.status, headers: res.headers, json, text };
}
