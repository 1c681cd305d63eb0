/** The packages as someone outside this monorepo gets them (`npm run build` first): each packs
 * with what its exports map, types and bin name and without sources or tests, and a minimal
 * Express site installed from the tarballs (no workspace links) serves the tracker and the form
 * embed, answers /visitor and passes page views to the platform, the companion's fetch handler
 * answers Node's own Request, and a script calls the platform with the client in CommonJS. The
 * platform itself runs from this repository (installing it elsewhere compiles SQLite, which takes
 * minutes). */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sqliteOf, startPlatform, type TestPlatform } from '../packages/platform/test/harness';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SITE_PACKAGES = ['protocol', 'api', 'client', 'tracker', 'forms', 'companion'];
// The React bindings are packed and checked like the others; the Express site has no use for them.
const ALL = [...SITE_PACKAGES, 'platform', 'react'];

interface Packed {
  name: string;
  filename: string;
  files: { path: string }[];
}

const dir = mkdtempSync(join(tmpdir(), 'svc-pack-'));
const site = join(dir, 'site');
const packed: Record<string, Packed> = {};
let t: TestPlatform;
let server: ChildProcess | undefined;

beforeAll(async () => {
  // One npm for all of them (--workspace each): an npm start is most of a small package's pack.
  const { stdout } = await run(
    'npm',
    ['pack', '--json', '--pack-destination', dir, ...ALL.flatMap((pkg) => ['--workspace', `packages/${pkg}`])],
    { cwd: ROOT },
  );
  for (const p of JSON.parse(stdout) as Packed[]) packed[p.name.replace('@svc/', '')] = p;
  expect(Object.keys(packed).sort()).toEqual([...ALL].sort());
  mkdirSync(site);
  const dependencies = Object.fromEntries(SITE_PACKAGES.map((p) => [`@svc/${p}`, `file:../${packed[p].filename}`]));
  writeFileSync(
    join(site, 'package.json'),
    JSON.stringify({
      name: 'a-site',
      private: true,
      type: 'module',
      dependencies: { ...dependencies, express: '^5.1.0' },
    }),
  );
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: site });
  t = await startPlatform();
}, 120_000);

afterAll(async () => {
  server?.kill('SIGTERM');
  await t?.close();
  rmSync(dir, { recursive: true, force: true });
});

/** The files a package's manifest points at: its exports (every condition), types, main and bins. */
function promised(manifest: Record<string, unknown>): string[] {
  const targets: string[] = [];
  const walk = (v: unknown) =>
    typeof v == 'string' ? targets.push(v) : v && typeof v == 'object' && Object.values(v).forEach(walk);
  walk(manifest.exports);
  walk(manifest.types);
  walk(manifest.main);
  walk(manifest.bin);
  return [...new Set(targets.filter((p) => p.startsWith('./') && !p.endsWith('package.json')).map((p) => p.slice(2)))];
}

describe('the packages, packed', () => {
  it('hold what their manifests promise, a README, and no sources or tests', async () => {
    for (const pkg of ALL) {
      const manifest = (await import(join(ROOT, 'packages', pkg, 'package.json'), { with: { type: 'json' } })).default;
      expect(manifest.version, pkg).toMatch(/^\d+\.\d+\.\d+/);
      const paths = packed[pkg].files.map((f) => f.path);
      for (const file of promised(manifest)) expect(paths, `${pkg} packs ${file}`).toContain(file);
      expect(paths, pkg).toContain('README.md');
      expect(
        paths.filter((p) => /^(src|test)\//.test(p)),
        pkg,
      ).toEqual([]);
    }
  });

  it('run a minimal Express site installed from the tarballs', async () => {
    writeFileSync(
      join(site, 'server.js'),
      `import express from 'express';
import { createCompanion } from '@svc/companion';
const app = express();
const companion = createCompanion({ baseUrl: process.env.BASE_URL, formsUrl: process.env.FORMS_URL, auth: { accessToken: process.env.TOKEN }, logger: false,
  events: { outboxFile: 'outbox.jsonl', handleSigterm: true } });
app.use('/svc', companion);
app.get('/', (_req, res) => res.send('<script src="/svc/tracker.js" data-portal-id="${t.portals[0].portalId}" data-collector="/svc"></script>'));
const s = app.listen(0, '127.0.0.1', () => console.log('listening ' + s.address().port));
`,
    );
    server = spawn(process.execPath, ['server.js'], {
      cwd: site,
      env: { ...process.env, BASE_URL: t.baseUrl, FORMS_URL: t.formsUrl, TOKEN: t.portals[0].privateAppToken },
    });
    let out = '';
    const url = await new Promise<string>((resolve, reject) => {
      server!.stdout!.on('data', (d) => {
        out += d;
        const m = /listening (\d+)/.exec(out);
        if (m) resolve(`http://127.0.0.1:${m[1]}`);
      });
      server!.stderr!.on('data', (d) => (out += d));
      server!.once('exit', () => reject(new Error(`the site exited: ${out}`)));
    });
    expect(await (await fetch(`${url}/`)).text()).toContain('/svc/tracker.js');
    for (const script of ['tracker.js', 'forms.js']) {
      const res = await fetch(`${url}/svc/${script}`);
      expect(res.status, script).toBe(200);
      expect(res.headers.get('content-type'), script).toContain('javascript');
    }
    expect(await (await fetch(`${url}/svc/visitor`)).json()).toEqual({ known: false });
    const utk = 'c'.repeat(32);
    const view = {
      eid: 'd'.repeat(32),
      k: '1',
      a: String(t.portals[0].portalId),
      v: '1',
      cts: String(Date.now()),
      vi: utk,
      pu: 'https://site.test/',
    };
    const sent = await fetch(`${url}/svc/collect/e`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: JSON.stringify([view]),
    });
    expect(sent.status).toBe(200);
    expect(sent.headers.get('set-cookie')).toMatch(new RegExp(`^svcutk=${utk};`));
    const rows = sqliteOf(t).prepare('SELECT count(*) AS n FROM tracking_events WHERE utk = ?').get(utk) as {
      n: number;
    };
    expect(rows.n).toBe(1);
  }, 30_000);

  it('run the companion\u2019s fetch handler from the tarball, on Node\u2019s own Request', async () => {
    const code = `import { createCompanion } from '@svc/companion/fetch';
const c = createCompanion({ baseUrl: process.env.BASE_URL, auth: { accessToken: process.env.TOKEN }, logger: false, events: { outboxFile: 'fetch-outbox.jsonl', handleSigterm: false } });
const res = await c.fetch(new Request('http://site.test/svc/tracker.js'));
console.log(JSON.stringify({ status: res.status, type: res.headers.get('content-type'), visitor: await (await c.fetch(new Request('http://site.test/svc/visitor'))).json() }));
await c.close();`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], {
      cwd: site,
      env: { ...process.env, BASE_URL: t.baseUrl, TOKEN: t.portals[0].privateAppToken },
    });
    expect(JSON.parse(stdout)).toEqual({
      status: 200,
      type: 'application/javascript; charset=utf-8',
      visitor: { known: false },
    });
  });

  it('run the client from the tarball in CommonJS', async () => {
    const code = `const { createClient } = require('@svc/client');
createClient({ baseUrl: process.env.BASE_URL, auth: { accessToken: process.env.TOKEN } }).contacts.statistics().then((s) => console.log(JSON.stringify(s)));`;
    const { stdout } = await run(process.execPath, ['-e', code], {
      cwd: site,
      env: { ...process.env, BASE_URL: t.baseUrl, TOKEN: t.portals[0].privateAppToken },
    });
    expect(JSON.parse(stdout)).toMatchObject({ contacts: expect.any(Number) });
  });
});
