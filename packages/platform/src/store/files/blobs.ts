/** File bytes on disk under the data directory, stored by content hash
 * (`<root>/<portal id>/<sha-256>`): names given by callers never become paths, so no upload can
 * write outside the directory, and every version of a file keeps its bytes. */
import { createHash, randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { join, resolve, sep } from 'node:path';

export function blobStore(root: string) {
  const base = resolve(root);
  const pathOf = (portalId: number, hash: string) => {
    if (!Number.isSafeInteger(portalId) || !/^[0-9a-f]{64}$/.test(hash)) throw new Error('bad blob address');
    const path = join(base, String(portalId), hash);
    // Both parts are checked above; this is the last guard should that ever change.
    if (!path.startsWith(base + sep)) throw new Error('blob path outside the data directory');
    return path;
  };

  return {
    root: base,
    /** Stores the bytes (atomically: a temporary file renamed into place) and returns their hash. */
    put(portalId: number, bytes: Buffer) {
      const hash = createHash('sha256').update(bytes).digest('hex');
      const path = pathOf(portalId, hash);
      if (!existsSync(path)) {
        mkdirSync(join(base, String(portalId)), { recursive: true });
        const tmp = `${path}.${randomUUID()}.tmp`;
        writeFileSync(tmp, bytes);
        renameSync(tmp, path);
      }
      return hash;
    },
    get(portalId: number, hash: string): Buffer | undefined {
      const path = pathOf(portalId, hash);
      return existsSync(path) ? readFileSync(path) : undefined;
    },
    remove: (portalId: number, hash: string) => rmSync(pathOf(portalId, hash), { force: true }),
  };
}

export type BlobStore = ReturnType<typeof blobStore>;
