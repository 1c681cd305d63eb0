/** An error answer's body as text with every known secret cut out, and parsed when it is JSON
 * (some servers answer errors as HTML; old endpoints send JSON as text/plain). Retries,
 * refresh-on-401 and decoding all read its `category`. */
import { redactSecrets } from '../errors';
import { header, type Headers } from './step';

export function errorBody(answer: { headers: Headers; bytes: Buffer }, secrets: string[]) {
  const text = redactSecrets(answer.bytes.toString('utf8'), secrets);
  let parsed: Record<string, unknown> | undefined;
  try {
    const json = /json/.test(header(answer.headers, 'content-type') ?? '') || /^\s*\{/.test(text);
    parsed = json ? (JSON.parse(text) as Record<string, unknown>) : undefined;
  } catch {
    parsed = undefined;
  }
  return { text, parsed, category: (parsed?.category ?? parsed?.errorType) as string | undefined };
}
