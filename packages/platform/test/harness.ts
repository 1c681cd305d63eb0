/** A real platform for tests: both servers on random ports, portals with credentials, a movable
 * clock, and a small fetch helper. Closed by the test's afterAll.
 *
 * The engine is env `SVC_TEST_ENGINE`: `sqlite` (the default; an in-memory database) or `postgres`
 * (each platform in a schema of its own on the server of test/postgres.ts, dropped when it
 * closes). The vitest config runs the platform's HTTP tests once on each. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  createPlatform,
  createPortal,
  issuePortalCredentials,
  type Platform,
  type PlatformOptions,
  type PortalCredentials,
  type Tier,
} from '../src';

export interface TestPortal extends PortalCredentials {
  /** `Authorization` header with the private-app token. */
  auth: { authorization: string };
}

export const TEST_ENGINE = process.env.SVC_TEST_ENGINE || 'sqlite';
if (TEST_ENGINE != 'sqlite' && TEST_ENGINE != 'postgres')
  throw new Error(`SVC_TEST_ENGINE must be sqlite or postgres, not "${TEST_ENGINE}"`);

/** Where a test platform keeps its data, and how to remove it after. */
async function testDatabase(): Promise<{ database: string; filesDir?: string; drop: () => Promise<void> }> {
  // Uploads go to a temporary directory the platform removes itself.
  if (TEST_ENGINE == 'sqlite') return { database: ':memory:', drop: async () => {} };
  // Loaded only here: it reaches for PostgreSQL as it loads.
  const { pgDatabase } = await import('./postgres');
  const { url, drop } = await pgDatabase('platform');
  const filesDir = mkdtempSync(join(tmpdir(), 'svc-files-'));
  return {
    database: url,
    filesDir,
    drop: async () => {
      await drop();
      rmSync(filesDir, { recursive: true, force: true });
    },
  };
}

export async function startPlatform(options: PlatformOptions & { portals?: { id: number; tier?: Tier }[] } = {}) {
  const clock = { now: Date.now() };
  const { database, filesDir, drop } = await testDatabase();
  let started: Platform | undefined;
  const close = async () => {
    await started?.close();
    await drop();
  };
  // Whatever fails while starting (a bad option throws in createPlatform), its database goes too.
  try {
    const platform = (started = createPlatform({
      database,
      filesDir,
      logger: false,
      checkResponses: true,
      now: () => clock.now,
      ...options,
    }));
    const { baseUrl, formsUrl } = await platform.listen({ basePort: 0, formsPort: 0 });
    const { engine } = platform.services;
    const portals: TestPortal[] = [];
    for (const { id, tier = 'enterprise' } of options.portals ?? [{ id: 62515 }, { id: 99999 }]) {
      await createPortal(engine, platform.services, { id, name: `portal ${id}`, tier, now: clock.now });
      const creds = await issuePortalCredentials(engine, id, clock.now);
      portals.push({ ...creds, auth: { authorization: `Bearer ${creds.privateAppToken}` } });
    }

    /** fetch on {base_url} (or a full URL) with the portal's token; JSON bodies are encoded. */
    const call = (
      method: string,
      path: string,
      {
        body,
        headers,
        portal = portals[0],
      }: { body?: unknown; headers?: Record<string, string>; portal?: TestPortal | null } = {},
    ) =>
      fetchJson(path.startsWith('http') ? path : baseUrl + path, {
        method,
        body,
        headers: { ...(portal ? portal.auth : {}), ...headers },
      });

    return { platform, baseUrl, formsUrl, portals, clock, call, close };
  } catch (err) {
    await close();
    throw err;
  }
}

export type TestPlatform = Awaited<ReturnType<typeof startPlatform>>;

/** better-sqlite3's database under a test platform, for a test that reads or writes it directly:
 * such a test runs on SQLite only (there is none on PostgreSQL, and this throws). */
export function sqliteOf(t: TestPlatform) {
  if (!t.platform.db) throw new Error('this test reads the SQLite database directly: it runs on SQLite only');
  return t.platform.db;
}

/** fetch without following redirects: a body that is not a string is sent as JSON; the answer's
 * JSON is decoded (undefined when it is not JSON). Shared with the companion's tests. */
export async function fetchJson(
  url: string,
  { method = 'GET', body, headers = {} }: { method?: string; body?: unknown; headers?: Record<string, string> } = {},
) {
  const asJson = body !== undefined && typeof body != 'string';
  const res = await fetch(url, {
    method,
    headers: { ...(asJson ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body === undefined ? undefined : asJson ? JSON.stringify(body) : body,
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
