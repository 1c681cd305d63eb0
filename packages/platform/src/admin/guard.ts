/** The admin API's door: `Authorization: Bearer <admin key>`, compared in constant time (by
 * digests of equal length). A portal's credential is never an admin key: one sent here is named
 * as such in a 403, so that a test that mixed the two up learns it at once. */
import type { NextFunction, Request, Response } from 'express';
import { errorBody } from '../http/errors';
import { keyCheck } from '../http/key-check';
import type { AdminContext } from './context';

/** The shortest admin key taken: it reads and changes every portal's data. */
export const MIN_ADMIN_KEY_LENGTH = 16;

/** Whether `given` is the admin key (for the fault header too, http/faults.ts's caller). */
export const adminKeyCheck = keyCheck;

export function adminGuard(ctx: AdminContext, key: string) {
  const isKey = adminKeyCheck(key);
  const refuse = (res: Response, status: number, message: string) =>
    void res.status(status).json(errorBody(message, { category: 'INVALID_AUTHENTICATION' }));
  return async (req: Request, res: Response, next: NextFunction) => {
    try {
      const header = req.get('authorization');
      const bearer = header === undefined ? undefined : /^Bearer (\S+)$/i.exec(header)?.[1];
      if (bearer !== undefined && isKey(bearer)) return next();
      const query = req.query as Record<string, unknown>;
      if (typeof query.hapikey == 'string' || typeof query.access_token == 'string')
        return refuse(
          res,
          403,
          "the admin API does not take a portal's API key or access token in the query: send Authorization: Bearer <admin key>",
        );
      if (header === undefined)
        return refuse(
          res,
          401,
          'the admin API needs Authorization: Bearer <admin key> (the key given with --admin-key, adminKey in the credentials file, or SVC_ADMIN_KEY under svc-platform exec)',
        );
      if (bearer === undefined) return refuse(res, 401, 'the Authorization header must be "Bearer <admin key>"');
      const credential = await ctx.services.credentials.find(ctx.engine, bearer);
      if (credential)
        return refuse(
          res,
          403,
          `this is portal ${credential.portal_id}'s ${credential.kind} credential, not the admin key: the admin API takes only the admin key`,
        );
      refuse(res, 401, 'the admin key is wrong');
    } catch (err) {
      next(err);
    }
  };
}
