/** examples/next for end-to-end tests: the demo portal on a real platform (temp SQLite file, random
 * ports), the example built once with `next build` into its own .next, and served by `next start`
 * on a free port of 127.0.0.1 with the platform's address and token in its environment. Stopped by
 * the test's afterAll (and by this process's exit, should that come first). */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createPlatform, seedDemo, DEMO_PORTAL } from '@svc/platform';

export const EXAMPLE = fileURLToPath(new URL('../../examples/next', import.meta.url));
const NEXT_BIN = createRequire(join(EXAMPLE, 'package.json')).resolve('next/dist/bin/next');
export const LINK_SECRET = 'e2e-next-link-secret-'.padEnd(40, 'x');

/** Our environment without vitest's markers, as a production Next.js process expects it. */
function nextEnv(extra: Record<string, string> = {}) {
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST')));
  return { ...env, NODE_ENV: 'production', NEXT_TELEMETRY_DISABLED: '1', ...extra } as NodeJS.ProcessEnv;
}

/** Runs `next <args>` in the example to its end; rejects with its output when it fails. */
function nextRun(args: string[]) {
  const child = spawn(process.execPath, [NEXT_BIN, ...args], { cwd: EXAMPLE, env: nextEnv(), stdio: 'pipe' });
  let out = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr.on('data', (d: Buffer) => (out += d.toString()));
  return new Promise<void>((resolve, reject) => {
    child.once('error', reject);
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`next ${args[0]} failed (${code}):\n${out}`)),
    );
  });
}

async function freePort() {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Stops `child` (SIGTERM, then SIGKILL after 10 s) and resolves once it has exited. */
function stop(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  return exited.finally(() => clearTimeout(timer));
}

export async function startNextSite() {
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-next-'));
  const port = await freePort();
  const siteUrl = `http://127.0.0.1:${port}`;
  const platform = createPlatform({
    database: join(dir, 'platform.db'),
    logger: false,
    preferenceLinks: { url: `${siteUrl}/svc/preferences`, secret: LINK_SECRET },
  });
  const { db } = platform;
  if (!db) throw new Error('the platform runs on a SQLite file'); // pageViews() reads it
  let child: ChildProcess | undefined;
  const kill = () => child?.kill('SIGKILL');
  try {
    await platform.ready;
    const credentials = (await seedDemo(platform.services))!;
    const { baseUrl, formsUrl } = await platform.listen({ basePort: 0, formsPort: 0 });
    const contactForm = (await platform.services.forms.list(platform.services.engine, DEMO_PORTAL)).find(
      (f) => f.name == 'Contact us',
    )!;

    await nextRun(['build']);
    // Its own output, to tell what went wrong if it stops or never answers.
    let out = '';
    child = spawn(process.execPath, [NEXT_BIN, 'start', '--hostname', '127.0.0.1', '--port', String(port)], {
      cwd: EXAMPLE,
      env: nextEnv({
        SVC_BASE_URL: baseUrl,
        SVC_FORMS_URL: formsUrl,
        SVC_PRIVATE_APP_TOKEN: credentials.privateAppToken,
        SVC_PORTAL_ID: String(DEMO_PORTAL),
        SVC_CONTACT_FORM_ID: contactForm.guid,
        SVC_LINK_SECRET: LINK_SECRET,
      }),
      stdio: 'pipe',
    });
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    process.once('exit', kill);
    // Ready once the route handler answers and the companion reaches the platform.
    const deadline = Date.now() + 60_000;
    for (;;) {
      if (child.exitCode !== null) throw new Error(`next start exited (${child.exitCode}):\n${out}`);
      const res = await fetch(`${siteUrl}/svc/healthz`).catch(() => undefined);
      if (res?.status == 200) break;
      if (Date.now() > deadline) throw new Error(`next start did not answer at ${siteUrl}/svc/healthz:\n${out}`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const running = child;

    /** The platform's API with the demo portal's private-app token. */
    async function api(path: string) {
      const res = await fetch(baseUrl + path, { headers: { authorization: `Bearer ${credentials.privateAppToken}` } });
      return { status: res.status, json: await res.json().catch(() => undefined) };
    }
    /** The page views the platform stored for this visitor, in order: path and title. */
    const pageViews = (utk: string) =>
      (
        db.prepare('SELECT title, data FROM tracking_events WHERE utk = ? AND kind = 1 ORDER BY seq').all(utk) as {
          title: string | null;
          data: string;
        }[]
      ).map((r) => ({ path: (JSON.parse(r.data) as { po?: string }).po, title: r.title }));

    return {
      siteUrl,
      baseUrl,
      formsUrl,
      api,
      pageViews,
      output: () => out,
      async close() {
        process.off('exit', kill);
        await stop(running);
        await platform.close();
        rmSync(dir, { recursive: true, force: true });
      },
    };
  } catch (err) {
    process.off('exit', kill);
    if (child) await stop(child);
    await platform.close();
    rmSync(dir, { recursive: true, force: true });
    throw err;
  }
}

export type NextSite = Awaited<ReturnType<typeof startNextSite>>;
