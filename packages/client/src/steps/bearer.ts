/** Credentials on the wire: the bearer token (refreshed first when due) on every route that is
 * neither public nor reached with an API key. It runs inside pacing, so the token is taken when
 * the call is about to leave, not before a wait it could expire in. The answer remembers the
 * token it was sent with, so refresh-on-401 knows which token the platform called expired. (An
 * API key is part of the URL and is added where the URL is built.) */
import type { Credentials } from '../auth';
import { TokenStoreError } from '../token-store';
import type { Request, Step } from './step';

/** A token store that failed fails the call with TOKEN_STORE_FAILED; other errors (a failed
 * refresh request) stay as they are. */
export const tokenStoreFailure = (req: Request, err: unknown) =>
  err instanceof TokenStoreError
    ? req.fail({
        status: 0,
        category: 'TOKEN_STORE_FAILED',
        cause: err.cause,
        message: `${req.route.method} ${req.path}: the token store failed (see cause)`,
      })
    : err;

export const bearer =
  (auth: Credentials): Step =>
  (next) =>
  async (req) => {
    if (req.route.public || auth.apiKey) return next(req);
    const token = await auth.bearer().catch((err) => {
      throw tokenStoreFailure(req, err);
    });
    if (!token) return next(req);
    const answer = await next({ ...req, headers: { ...req.headers, authorization: `Bearer ${token}` } });
    return 'failure' in answer ? answer : { ...answer, token };
  };
