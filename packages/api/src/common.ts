/** Schemas shared by many routes: identifiers, paging, repeated query parameters, error bodies. */
import { UTK_PATTERN } from '@svc/protocol';
import { z } from 'zod';

/** A numeric id in a path or query (`"123"` → 123). */
export const numericId = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a positive integer')
  .transform(Number);

/** A visitor token that something will be linked to (a form submission, a server-side event):
 * @svc/protocol's format, the one the collector takes, so no route links a token it would refuse. */
/** An absolute http(s) URL: where a browser is sent (a form's redirect). `javascript:` and other
 * schemes would run in the visitor's page or leave the web. */
export const httpUrl = z
  .string()
  .max(4096)
  .refine((s) => {
    try {
      return ['http:', 'https:'].includes(new URL(s).protocol);
    } catch {
      return false;
    }
  }, 'must be an absolute http(s) URL');

export const visitorToken = z.string().regex(UTK_PATTERN, 'must be a visitor token (32 lower-case hex characters)');

/** A query parameter that may repeat (`?vid=1&vid=2`): always an array. */
export const repeated = <T extends z.ZodType>(item: T) =>
  z.preprocess((v): unknown[] => (v === undefined ? [] : Array.isArray(v) ? v : [v]), z.array(item));

/** `"true"`/`"false"` in a query string. */
export const booleanString = z.enum(['true', 'false']).transform((v) => v == 'true');

/** A page size, the one rule of every list route: a whole number, at least 1; values above `max`
 * (however many digits) are clamped to it, as the legacy API does. Undefined when absent. */
export const pageSize = (max: number) =>
  z
    .string()
    .regex(/^\d+$/, 'must be a whole number')
    .transform(Number)
    .refine((n) => n >= 1, 'must be at least 1')
    .transform((n) => Math.min(n, max))
    .optional();

/** {@link pageSize} with a default. */
export const count = (fallback: number, max: number) => pageSize(max).transform((n) => n ?? fallback);

/** A non-negative integer offset or timestamp in a query string. */
export const offset = z
  .string()
  .regex(/^\d{1,15}$/, 'must be a non-negative integer')
  .transform(Number);

/** Milliseconds since the epoch. */
export const timestamp = z.number().int();

/** The legacy error body (`status`, `message`, ids, and endpoint-specific extras). */
export const errorBody = z.looseObject({
  status: z.literal('error'),
  message: z.string(),
  correlationId: z.string(),
  requestId: z.string(),
  category: z.string().optional(),
  error: z.string().optional(),
  type: z.string().optional(),
});

/** `{status: 'ok'}` for writes that answer with a body but no record. */
export const ok = z.object({ status: z.literal('ok') });

/** Any JSON object (for records whose fields the spec leaves open). */
export const anyObject = z.looseObject({});

// A missing field says so, instead of zod's "expected string, received undefined".
z.config({
  customError: (issue) => (issue.code == 'invalid_type' && issue.input === undefined ? 'is required' : undefined),
});
