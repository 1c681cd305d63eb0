/** `tracker.js` and `forms.js` served first-party: an ETag (304 on a match), a short cache on the
 * plain path and a year-long immutable one on the versioned path (`tracker.<hash>.js`), whose hash
 * changes with the content. A bundle that is not built answers a clear 404. */
import { createHash } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { HttpError } from '../http/errors';
import { notModified, type CoreRequest, type Reply } from '../http/exchange';

interface Loaded {
  body: Buffer;
  etag: string;
  hash: string;
}

export function bundle(name: string, file: string | undefined, missing: string) {
  let loaded: Loaded | undefined;
  const load = async () => {
    if (loaded) return loaded;
    if (!file) return undefined;
    try {
      const body = await readFile(file);
      const digest = createHash('sha256').update(body).digest('base64url');
      loaded = {
        body,
        etag: `"${digest.slice(0, 27)}"`,
        hash: createHash('sha256').update(body).digest('hex').slice(0, 12),
      };
      return loaded;
    } catch {
      return undefined; // not built (yet): try again on the next request
    }
  };

  return {
    /** The versioned file name, e.g. `tracker.3f2a9c0d1e4b.js`, or undefined when not built. */
    versioned: async () => {
      const l = await load();
      return l && `${name}.${l.hash}.js`;
    },
    /** Serves `/<name>.js` (`hash` undefined) and `/<name>.<hash>.js`. */
    serve: async (req: CoreRequest, hash?: string): Promise<Reply> => {
      const l = await load();
      if (!l) throw new HttpError(404, missing);
      if (hash !== undefined && hash != l.hash)
        throw new HttpError(404, `no ${name}.js with version ${hash.slice(0, 12)}; use ${name}.${l.hash}.js`);
      const headers = {
        'content-type': 'application/javascript; charset=utf-8',
        etag: l.etag,
        'cache-control': hash ? 'public, max-age=31536000, immutable' : 'public, max-age=300',
        // A site may load the script from another subdomain than the companion's.
        'cross-origin-resource-policy': 'cross-origin',
      };
      return notModified(req, l.etag) ? { status: 304, headers } : { status: 200, headers, body: l.body };
    },
  };
}
