/** The command line's snapshot flags, for `svc-platform` and `svc-platform exec`:
 * `--import FILE` starts from a snapshot (the whole state replaced by it before serving), and
 * `--export-on-exit FILE` writes one when the platform stops (a temporary file renamed over FILE
 * once whole: a failed export leaves the previous FILE as it was). */
import type { Platform } from './app';
import { DEMO_PORTAL } from './seed';
import { SnapshotError } from './services/snapshot';
import { issuePortalCredentials, type PortalCredentials } from './store/portals';

/** Loads FILE into the platform (ready, not yet serving); an error names the flag and the file. */
export async function importAtStart(platform: Pick<Platform, 'snapshots'>, file: string) {
  try {
    return await platform.snapshots.importFile(file);
  } catch (err) {
    const e = err as NodeJS.ErrnoException;
    const why =
      e.code == 'ENOENT' ? 'no such file' : err instanceof SnapshotError ? e.message : `cannot load it: ${e.message}`;
    throw new Error(`--import ${file}: ${why}`, { cause: err });
  }
}

/** Writes the snapshot to FILE, before the platform closes its data; says so on `log`. */
export async function exportOnExit(platform: Pick<Platform, 'snapshots'>, file: string, log: (line: string) => void) {
  try {
    await platform.snapshots.exportToFile(file);
    log(`snapshot written to ${file}`);
    return true;
  } catch (err) {
    log(
      `--export-on-exit ${file}: the snapshot could not be written (${(err as Error).message}); ${file} is as it was`,
    );
    return false;
  }
}

/** Credentials for a twin started from a snapshot, whose own are stored as hashes only: new ones
 * issued to its demo portal, else to its first portal; undefined when it has no portal. */
export async function credentialsAfterImport(
  platform: Pick<Platform, 'services' | 'clock'>,
): Promise<PortalCredentials | undefined> {
  const { engine, portals } = platform.services;
  const ids = await portals.ids(engine);
  const id = ids.includes(DEMO_PORTAL) ? DEMO_PORTAL : ids[0];
  return id === undefined ? undefined : issuePortalCredentials(engine, id, platform.clock.now());
}
