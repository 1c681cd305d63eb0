/** `@svc/platform/testing`: the platform as a twin inside a Node test process (vitest, jest,
 * node:test): both servers on free ports, in memory unless told otherwise, the admin API on, the
 * demo portal seeded with its credentials, a typed admin client, and close(). `svc-platform exec`
 * starts the same twin for a test command in a child process. */
import { createPlatform, type Platform, type PlatformOptions } from './app';
import { adminClient, type AdminClient } from './admin-client';
import { seedDemo } from './seed';
import { credentialsAfterImport, importAtStart } from './snapshot-flags';
import type { PortalCredentials } from './store/portals';

export {
  adminClient,
  AdminError,
  type AdminClient,
  type ClockMoved,
  type ClockTime,
  type SnapshotImported,
} from './admin-client';
export type { FaultSpec } from './http/faults';
export type { JournalEntry, JournalFilter } from './http/journal';

export interface TwinOptions extends Omit<PlatformOptions, 'admin'> {
  /** Where the servers listen (default 127.0.0.1); ports are always free ones. */
  host?: string;
  /** A snapshot to start from (the file GET /_admin/snapshot gives): it replaces the data before
   * the twin serves, and the twin's credentials are new ones of its demo portal (or its first). */
  importFile?: string;
}

export interface Twin {
  baseUrl: string;
  formsUrl: string;
  /** `{base_url}/_admin`. */
  adminUrl: string;
  adminKey: string;
  /** The demo portal's id and credentials (the credentials file's shape). */
  portalId: number;
  credentials: PortalCredentials;
  /** The variables `svc-platform exec` gives its command: SVC_BASE_URL, SVC_TOKEN, …. */
  env: Record<string, string>;
  admin: AdminClient;
  platform: Platform;
  /** Stops both servers and closes the data (an in-memory twin's is gone). */
  close: () => Promise<void>;
}

/** The SVC_* variables of a twin. */
export function twinEnv(t: Omit<Twin, 'env' | 'admin' | 'platform' | 'close'>): Record<string, string> {
  return {
    SVC_BASE_URL: t.baseUrl,
    SVC_FORMS_URL: t.formsUrl,
    SVC_PORTAL_ID: String(t.portalId),
    SVC_TOKEN: t.credentials.privateAppToken,
    SVC_API_KEY: t.credentials.apiKey,
    SVC_CLIENT_ID: t.credentials.oauth.clientId,
    SVC_CLIENT_SECRET: t.credentials.oauth.clientSecret,
    SVC_REFRESH_TOKEN: t.credentials.oauth.refreshToken,
    SVC_ADMIN_URL: t.adminUrl,
    SVC_ADMIN_KEY: t.adminKey,
  };
}

export async function startTwin(options: TwinOptions = {}): Promise<Twin> {
  const { host = '127.0.0.1', importFile, ...rest } = options;
  const platform = createPlatform({ database: ':memory:', logger: false, ...rest, admin: true });
  try {
    await platform.ready;
    // A database that has the demo portal already (a --data file) has no new credentials to give:
    // a new portal is made for the twin instead.
    let seeded: PortalCredentials | undefined;
    if (importFile === undefined) seeded = await seedDemo(platform.services);
    else {
      await importAtStart(platform, importFile);
      seeded = await credentialsAfterImport(platform);
    }
    const { baseUrl, formsUrl } = await platform.listen({ basePort: 0, formsPort: 0, host });
    const adminUrl = `${baseUrl}/_admin`;
    const adminKey = platform.adminKey!;
    const admin = adminClient(adminUrl, adminKey);
    const credentials = seeded ?? (await admin.portals.create({ name: 'Twin' }));
    const parts = { baseUrl, formsUrl, adminUrl, adminKey, portalId: credentials.portalId, credentials };
    return { ...parts, env: twinEnv(parts), admin, platform, close: () => platform.close() };
  } catch (err) {
    await platform.close();
    throw err;
  }
}
