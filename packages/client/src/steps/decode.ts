/** The outermost step: the last answer becomes the call's result (the decoded body, `undefined`
 * for an empty one, `{ status, location }` for a redirect) or its SvcApiError, with the error
 * body's category, ids and Retry-After, and no secret in it. */
import { decodeBody } from '../encoding';
import { retryAfterMs } from '../retry';
import { errorBody } from './error-body';
import { header, type Request, type Send } from './step';

export const decode =
  (next: Send) =>
  async (req: Request): Promise<unknown> => {
    const answer = await next(req);
    const { method } = req.route;
    if ('failure' in answer)
      throw req.fail({
        status: 0,
        category: answer.failure,
        message: `${method} ${req.path} failed: ${answer.reason}`,
      });
    const { status, headers, bytes } = answer;
    if (status < 300) {
      if (!bytes.length) return undefined;
      try {
        return decodeBody(header(headers, 'content-type') ?? '', bytes).value;
      } catch {
        throw req.fail({
          status,
          category: 'INVALID_RESPONSE',
          message: `${method} ${req.path} answered ${status} with a body that is not valid JSON`,
        });
      }
    }
    if (status < 400) return { status, location: header(headers, 'location') };

    const { parsed, text, category } = errorBody(answer, req.secrets());
    throw req.fail({
      status,
      category,
      message: typeof parsed?.message == 'string' ? parsed.message : `${method} ${req.path} answered ${status}`,
      correlationId: parsed?.correlationId as string | undefined,
      requestId: parsed?.requestId as string | undefined,
      retryAfterMs: retryAfterMs(header(headers, 'retry-after'), Date.now()),
      body: parsed ?? (text ? text.slice(0, 2000) : undefined),
    });
  };
