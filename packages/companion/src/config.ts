/** The standalone companion's settings: flags over environment over a JSON config file over
 * defaults. Credentials come from the platform's credentials file unless given otherwise. */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { AuthOptions } from '@svc/client';
import type { CompanionOptions } from './options';

export const HELP = `svc-companion — the svc companion as a standalone server

  --port N              listen port (default 3300; env PORT)
  --host H              listen address (default 127.0.0.1)
  --mount PATH          where the routes live (default /svc)
  --base-url URL        {base_url} of the platform (default http://127.0.0.1:3200; env SVC_BASE_URL)
  --forms-url URL       {forms_url} (default: derived from --base-url; env SVC_FORMS_URL)
  --credentials FILE    the platform's credentials file (default .data/credentials.json; env SVC_CREDENTIALS)
  --auth KIND           oauth (default when the file has OAuth credentials) or private-app
  --config FILE         JSON file with any createCompanion option, plus port, host, mount
  --allowed-origin O    an origin allowed to call with credentials (repeatable; env SVC_ALLOWED_ORIGINS, comma-separated)
  --public-url URL      where the companion is reachable, mount included (for preference links)
  --outbox FILE         the event outbox (default .data/companion-outbox.jsonl)
  --token-file FILE     the OAuth token store (default .data/companion-tokens.<client>.json)
  --trust-proxy V       Express "trust proxy" (e.g. 1, loopback) when behind a proxy
  --redis URL           shared mode: state in Redis, so several companions act as one
                        (env SVC_COMPANION_REDIS_URL, which keeps a password out of ps);
                        needs SVC_COMPANION_LINK_SECRET
  --redis-prefix P      prefix of every Redis key (default svc:companion:; env SVC_COMPANION_REDIS_PREFIX)
  --help

  Secrets only from the environment or the config file (never flags, which show in ps):
  SVC_COMPANION_LINK_SECRET    key of the preference links (at least 32 characters)
  SVC_COMPANION_EVENTS_SECRET  shared secret for POST /events
  SVC_PRIVATE_APP_TOKEN        a private-app token instead of the credentials file`;

export interface StandaloneConfig {
  port: number;
  host: string;
  mount: string;
  trustProxy?: string;
  options: CompanionOptions;
}

interface CredentialsFile {
  privateAppToken?: string;
  oauth?: { clientId: string; clientSecret: string; refreshToken: string };
}

function readJson(file: string, what: string): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    throw new Error(`cannot read the ${what} ${file}`);
  }
  try {
    return JSON.parse(text) as Record<string, unknown>;
  } catch {
    throw new Error(`the ${what} ${file} is not valid JSON`);
  }
}

export function loadConfig(argv: string[], env: NodeJS.ProcessEnv = process.env): StandaloneConfig | 'help' {
  const { values: f } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      mount: { type: 'string' },
      'base-url': { type: 'string' },
      'forms-url': { type: 'string' },
      credentials: { type: 'string' },
      auth: { type: 'string' },
      config: { type: 'string' },
      'allowed-origin': { type: 'string', multiple: true },
      'public-url': { type: 'string' },
      outbox: { type: 'string' },
      'token-file': { type: 'string' },
      'trust-proxy': { type: 'string' },
      redis: { type: 'string' },
      'redis-prefix': { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (f.help) return 'help';
  const file = f.config ? readJson(f.config, 'config file') : {};
  const fromFile = file as Partial<CompanionOptions> & { port?: number; host?: string; mount?: string };

  const port = Number(f.port ?? env.PORT ?? fromFile.port ?? 3300);
  if (!Number.isInteger(port) || port < 0 || port > 65535)
    throw new Error(`--port must be a port number, not "${f.port ?? env.PORT ?? fromFile.port}"`);
  const mount = f.mount ?? fromFile.mount ?? '/svc';
  if (!mount.startsWith('/')) throw new Error('--mount must start with /');

  let auth: AuthOptions | undefined = fromFile.auth;
  let tokenFile = f['token-file'] ?? fromFile.tokenFile;
  if (env.SVC_PRIVATE_APP_TOKEN) auth = { accessToken: env.SVC_PRIVATE_APP_TOKEN };
  if (!auth || f.credentials || f.auth) {
    const path = f.credentials ?? env.SVC_CREDENTIALS ?? '.data/credentials.json';
    const creds = readJson(path, 'credentials file') as CredentialsFile;
    const kind = f.auth ?? (creds.oauth ? 'oauth' : 'private-app');
    if (kind == 'oauth') {
      if (!creds.oauth) throw new Error(`the credentials file ${path} has no oauth credentials`);
      auth = { oauth: creds.oauth };
      // One token file per OAuth client: a fresh platform's client never picks up an old client's tokens.
      tokenFile ??= `.data/companion-tokens.${creds.oauth.clientId.slice(0, 8)}.json`;
    } else if (kind == 'private-app') {
      if (!creds.privateAppToken) throw new Error(`the credentials file ${path} has no privateAppToken`);
      auth = { accessToken: creds.privateAppToken };
    } else throw new Error(`--auth must be oauth or private-app, not "${kind}"`);
  }

  const origins =
    f['allowed-origin'] ??
    env.SVC_ALLOWED_ORIGINS?.split(',')
      .map((o) => o.trim())
      .filter(Boolean) ??
    fromFile.allowedOrigins;
  const options: CompanionOptions = {
    ...fromFile,
    baseUrl: f['base-url'] ?? env.SVC_BASE_URL ?? fromFile.baseUrl ?? 'http://127.0.0.1:3200',
    formsUrl: f['forms-url'] ?? env.SVC_FORMS_URL ?? fromFile.formsUrl,
    auth,
    tokenFile,
    allowedOrigins: origins,
    publicUrl: f['public-url'] ?? env.SVC_PUBLIC_URL ?? fromFile.publicUrl,
    redis: f.redis ?? (env.SVC_COMPANION_REDIS_URL || undefined) ?? fromFile.redis,
    redisPrefix: f['redis-prefix'] ?? (env.SVC_COMPANION_REDIS_PREFIX || undefined) ?? fromFile.redisPrefix,
    events: {
      ...fromFile.events,
      outboxFile: f.outbox ?? fromFile.events?.outboxFile,
      secret: env.SVC_COMPANION_EVENTS_SECRET ?? fromFile.events?.secret,
      handleSigterm: false, // the CLI stops the server first, then closes the companion
    },
    subscriptions: {
      ...fromFile.subscriptions,
      linkSecret: env.SVC_COMPANION_LINK_SECRET ?? fromFile.subscriptions?.linkSecret,
    },
  };
  return { port, host: f.host ?? fromFile.host ?? '127.0.0.1', mount, trustProxy: f['trust-proxy'], options };
}
