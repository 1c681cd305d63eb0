/** `svc-companion`: the companion as a standalone server — an Express app with the companion at
 * `--mount` (default `/svc`). See `--help` and the README for the options. */
import type { AddressInfo } from 'node:net';
import { createCompanion } from './index';
import { HELP, loadConfig } from './config';
import { answerClientError } from './http/client-error';

/** A taken port, told as what to do about it (Node's own message names no flag). */
function inUse(err: NodeJS.ErrnoException & { port?: number }) {
  if (err.code != 'EADDRINUSE') return err;
  return new Error(
    `port ${err.port} is in use (another svc-companion?): stop that program, or pick a free port with --port N (or env PORT)`,
  );
}

export async function main(argv: string[]) {
  const config = loadConfig(argv);
  if (config == 'help') return console.log(HELP);
  // express is an optional peer dependency (a site on the fetch handler has none): loaded here.
  const express = await import('express').then(
    (m) => m.default,
    () => {
      throw new Error('svc-companion runs on Express, which is not installed: npm install express');
    },
  );
  const app = express();
  app.disable('x-powered-by');
  if (config.trustProxy !== undefined)
    app.set('trust proxy', /^\d+$/.test(config.trustProxy) ? Number(config.trustProxy) : config.trustProxy);
  const companion = createCompanion(config.options);
  app.use(config.mount, companion);
  const server = await new Promise<ReturnType<typeof app.listen>>((resolve, reject) => {
    // Express 5 hands a listen error to the callback (it resolved with a server that never listened).
    const s = app.listen(config.port, config.host, (err?: Error) => (err ? reject(inUse(err)) : resolve(s)));
  });
  server.on('clientError', answerClientError);
  const { port } = server.address() as AddressInfo;
  // Before the line that says it listens: whoever reads that line may stop it at once.
  let stopping = false;
  const stop = async () => {
    if (stopping) return;
    stopping = true;
    server.close();
    server.closeIdleConnections();
    await companion.close();
    process.exit(0);
  };
  process.once('SIGINT', () => void stop());
  process.once('SIGTERM', () => void stop());
  // Shared mode is named, never its URL (it may carry a password).
  const mode = config.options.redis ? '  shared state in Redis' : '';
  console.log(
    `svc companion: http://${config.host}:${port}${config.mount} → ${config.options.baseUrl}${mode}  (Ctrl+C to stop)`,
  );
  return { server, companion, port };
}
