/** One forced refresh per call: when the platform answers 401 EXPIRED_AUTHENTICATION to a token
 * the client believed fresh (revocation, clock skew), the token is replaced (unless another call
 * already did) and the attempt is sent again, without counting as a retry. Never a loop: a second
 * expiry in the same call is an error like any other. */
import type { Credentials } from '../auth';
import { tokenStoreFailure } from './bearer';
import { errorBody } from './error-body';
import type { Step } from './step';

export const refreshOn401 =
  (auth: Credentials): Step =>
  (next) =>
  async (req) => {
    const answer = await next(req);
    if (!auth.canRefresh || req.refreshed || 'failure' in answer || answer.status != 401 || !answer.token)
      return answer;
    if (errorBody(answer, req.secrets()).category != 'EXPIRED_AUTHENTICATION') return answer;
    req.refreshed = true;
    await auth.expired(answer.token).catch((err) => {
      throw tokenStoreFailure(req, err);
    });
    return next(req);
  };
