/** The admin API's input and answers: a zod check whose 400 names the field, JSON bodies, and
 * async routes whose errors become the API's JSON error answers (http/errors.ts). */
import express, { type Request, type RequestHandler, type Response } from 'express';
import type { z } from 'zod';
import { PlatformError } from '../domain/errors';
import { fromBodyParser } from '../http/bodies';
import { notPercentEncoding } from '../http/catalog-call';
import { httpAnswer, internalError } from '../http/errors';
import type { AdminLog } from './context';

/** `value` checked against `schema`; else a 400 naming the first problem (`body.tier: …`). */
export function parse<S extends z.ZodType>(schema: S, value: unknown, where: string): z.output<S> {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = [where, ...issue.path.map(String)].join('.');
  throw new PlatformError('invalid', `${field}: ${issue.message}`, {
    category: 'VALIDATION_ERROR',
    errors: result.error.issues.map((i) => ({ message: i.message, in: [where, ...i.path.map(String)].join('.') })),
  });
}

/** A JSON body (an empty one is `{}`); anything but JSON is a 415 naming the type. */
export const jsonBody: RequestHandler[] = [
  express.json({ limit: '1mb', type: () => true, strict: true }),
  (req, _res, next) => {
    req.body ??= {};
    next();
  },
];

/** The answer to an error: the platform's JSON error body, 500 (logged, unnamed) for a bug. */
export function sendError(res: Response, err: unknown, log: AdminLog) {
  if (res.headersSent) return;
  // Express could not percent-decode a path parameter.
  const named = err instanceof URIError ? notPercentEncoding() : (fromBodyParser(err) ?? err);
  const known = httpAnswer(named);
  if (!known) log.error({ err }, 'admin API: unhandled error');
  const { status, headers, body } = known ?? internalError();
  res.status(status).set(headers).json(body);
}

/** An async route whose rejection is answered as an error. */
export const route = (log: AdminLog, fn: (req: Request, res: Response) => unknown) => (req: Request, res: Response) => {
  Promise.resolve()
    .then(() => fn(req, res))
    .catch((err: unknown) => sendError(res, err, log));
};
