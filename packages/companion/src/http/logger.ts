/** The companion's logger: pino, with credentials and personal data redacted wherever they might
 * appear. The companion itself only logs statuses, categories and counts; redaction is the net
 * under that rule, for a host that logs more. */
import { pino, type Logger } from 'pino';

const REDACT = [
  'authorization',
  'cookie',
  'token',
  'accessToken',
  'refreshToken',
  'clientSecret',
  'secret',
  'linkSecret',
  'apiKey',
  'email',
  'utk',
  '*.authorization',
  '*.cookie',
  '*.token',
  '*.accessToken',
  '*.refreshToken',
  '*.clientSecret',
  '*.secret',
  '*.apiKey',
  '*.email',
  '*.utk',
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["x-csrf-token"]',
  'res.headers["set-cookie"]',
];

export function companionLogger(logger: Logger | false | undefined): Logger | undefined {
  if (logger === false) return undefined;
  const base = logger ?? pino({ name: 'svc-companion' });
  return base.child({ component: 'svc-companion' }, { redact: { paths: REDACT, censor: '[redacted]' } });
}
