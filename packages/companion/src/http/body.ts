/** Request bodies, read the same way through both doors: the bytes up to a limit (413 past it), the
 * Content-Encoding undone (gzip, deflate, br; 415 for another, 400 for a body that does not decode,
 * 413 when it inflates past the limit), and for JSON routes the text parsed strictly (an object or
 * an array; 400 naming the problem otherwise). The messages are the ones the companion has always
 * answered with under Express's body parsers. */
import { brotliDecompress, gunzip, inflate, type InputType, type ZlibOptions } from 'node:zlib';
import type { CoreRequest } from './exchange';
import { HttpError } from './errors';

/** JSON bodies (events, preference changes). */
export const JSON_LIMIT = 64 * 1024;
/** Webhook calls from the platform. */
export const WEBHOOK_LIMIT = 1024 * 1024;

type Decoder = (data: InputType, options: ZlibOptions, done: (e: Error | null, out: Buffer) => void) => void;
const DECODERS: Record<string, Decoder> = {
  gzip: gunzip,
  'x-gzip': gunzip,
  deflate: inflate,
  br: brotliDecompress,
};

/** Slack over the limit for compressed bytes: incompressible data grows a little when "compressed". */
const COMPRESSED_SLACK = 1024;

export const tooLarge = () => new HttpError(413, 'the request body is too large');

/** The media type of a Content-Type header, lower case, without parameters. */
export const mediaType = (contentType: string | undefined) => contentType?.split(';', 1)[0].trim().toLowerCase();

export const isJson = (req: CoreRequest) => mediaType(req.header('content-type')) == 'application/json';

/** The body's bytes with its Content-Encoding undone, at most `limit` of them. */
export async function bodyBytes(req: CoreRequest, limit: number): Promise<Buffer> {
  const encoding = (req.header('content-encoding') ?? 'identity').trim().toLowerCase();
  if (encoding == 'identity') return Buffer.from(await req.rawBody(limit));
  const decode = DECODERS[encoding];
  if (!decode) throw new HttpError(415, 'the request body has an unsupported encoding');
  const raw = await req.rawBody(limit + COMPRESSED_SLACK);
  return new Promise((resolve, reject) =>
    decode(raw, { maxOutputLength: limit }, (e, out) => {
      if (!e) return resolve(out);
      // Inflating past the limit (a small body that decompresses to a huge one included).
      reject(
        (e as NodeJS.ErrnoException).code == 'ERR_BUFFER_TOO_LARGE'
          ? tooLarge()
          : new HttpError(400, 'the request body is not valid for its Content-Encoding'),
      );
    }),
  );
}

/** The request's JSON body: undefined when it is not sent as `application/json` (the route then says
 * what it wants), `{}` when empty, else an object or an array. */
export async function jsonBody(req: CoreRequest): Promise<unknown> {
  const type = req.header('content-type');
  if (mediaType(type) != 'application/json') return undefined;
  if (req.parsedBody !== undefined) return req.parsedBody;
  const charset = /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(type ?? '')?.[1].toLowerCase() ?? 'utf-8';
  if (!charset.startsWith('utf-')) throw new HttpError(415, 'the request body has an unsupported charset');
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset, { fatal: false });
  } catch {
    throw new HttpError(415, 'the request body has an unsupported charset');
  }
  const bytes = await bodyBytes(req, JSON_LIMIT);
  if (bytes.length == 0) return {};
  let value: unknown;
  try {
    value = JSON.parse(decoder.decode(bytes));
  } catch {
    throw new HttpError(400, 'the request body is not valid JSON');
  }
  // Strict: `null`, `1` or `"x"` parse, but no route takes them.
  if (value === null || typeof value != 'object') throw new HttpError(400, 'the request body must be a JSON object');
  return value;
}
