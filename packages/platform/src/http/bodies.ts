/** Request bodies: the parser of each catalog body type (body-parser's, through Express) and
 * their errors as the platform's own. One instance of each serves every route, those Express
 * mounts (http/router.ts) and the form submissions' plain handler (http/form-submissions.ts). */
import express, { type NextFunction, type Request, type Response } from 'express';
import { PlatformError } from '../domain/errors';
import { multipart } from './multipart';

const BODY_LIMIT = '1mb';
/** Fields of a urlencoded body at most (body-parser's default). */
const MAX_FIELDS = 1000;

/** JSON deeper than this is refused before any handler walks it (an attack on recursion). */
const MAX_JSON_DEPTH = 64;

/** Whether `value` holds a value more than `limit` levels down. Recursive, but never deeper than
 * `limit` + 1 calls whatever the body; walked in place, since a walk that copied each level's
 * values into arrays cost every large JSON body a copy of itself. */
export function depthOver(value: unknown, limit: number, depth = 0): boolean {
  if (depth > limit) return true;
  if (!value || typeof value != 'object') return false;
  if (Array.isArray(value)) {
    for (const v of value) if (depthOver(v, limit, depth + 1)) return true;
    return false;
  }
  for (const key in value) if (depthOver((value as Record<string, unknown>)[key], limit, depth + 1)) return true;
  return false;
}

/** After the JSON parser: a body nested past MAX_JSON_DEPTH levels is a 400. */
const jsonDepth = (req: Request, _res: Response, next: NextFunction) =>
  next(
    depthOver(req.body, MAX_JSON_DEPTH)
      ? new PlatformError('invalid', `body: nested more than ${MAX_JSON_DEPTH} levels deep`, {
          category: 'VALIDATION_ERROR',
        })
      : undefined,
  );

/** A urlencoded body (`extended: false`: node's querystring rules, a repeated name an array). It
 * needs nothing of Express but `req`'s stream and headers, so a plain handler calls it too. */
export const urlencodedBody = express.urlencoded({ limit: BODY_LIMIT, extended: false, parameterLimit: MAX_FIELDS });

/** The middleware that reads each catalog body type into `req.body`. */
export const bodyParsers = {
  none: [],
  json: [express.json({ limit: BODY_LIMIT, type: ['application/json', 'text/plain'] }), jsonDepth],
  urlencoded: [urlencodedBody],
  multipart: [multipart()],
  atom: [express.text({ limit: BODY_LIMIT, type: ['application/atom+xml', 'application/xml', 'text/xml'] })],
} as const;

/** Why a JSON body was refused: strict parsing takes only objects and arrays, so `null` or `42`
 * is valid JSON of the wrong kind. */
function jsonProblem(text: unknown) {
  try {
    const value: unknown = JSON.parse(String(text));
    return `request body must be a JSON object or array, not ${value === null ? 'null' : typeof value}`;
  } catch {
    return 'request body is not valid JSON';
  }
}

/** body-parser's errors (they carry a 4xx `status` and a `type`) as the platform's own, so that
 * one mapping (http/errors.ts) answers every error, each naming its problem. */
export function fromBodyParser(err: unknown): PlatformError | undefined {
  const { status, type } = (err ?? {}) as { status?: unknown; type?: unknown };
  if (err instanceof PlatformError || typeof status != 'number' || status < 400 || status >= 500) return undefined;
  const extra = { category: 'VALIDATION_ERROR' };
  if (type == 'parameters.too.many')
    return new PlatformError('too-large', `request body has more than ${MAX_FIELDS} fields`, extra);
  if (status == 413) return new PlatformError('too-large', `request body exceeds ${BODY_LIMIT}`, extra);
  if (status == 415) return new PlatformError('unsupported-type', (err as Error).message, extra);
  return new PlatformError(
    'invalid',
    type == 'entity.parse.failed' ? jsonProblem((err as { body?: unknown }).body) : (err as Error).message,
    extra,
  );
}
