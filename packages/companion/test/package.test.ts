/** The built package as an app loads it (`npm run build` first): ESM and CommonJS through the
 * exports map, each in a fresh Node process — the main entry mounted in an Express app, and the
 * fetch entry answering Node's own `Request` with `express` made unresolvable, as on a site that
 * does not have it. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { tempDir } from './harness';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const OUTBOX = JSON.stringify(`${tempDir()}/outbox.jsonl`);
const MOUNT = `const c = createCompanion({ baseUrl: 'http://127.0.0.1:9', auth: { accessToken: 'x' }, logger: false, events: { outboxFile: ${OUTBOX}, handleSigterm: false } });
  const app = express(); app.use('/svc', c);
  const s = app.listen(0, '127.0.0.1', async () => {
    const r = await fetch('http://127.0.0.1:' + s.address().port + '/svc/visitor');
    console.log(JSON.stringify({ status: r.status, body: await r.json(), scripts: await c.scripts() }));
    await c.close(); s.close();
  });`;

/** The fetch handler asked for /svc/visitor, printed as JSON. */
const FETCH = `const c = createCompanion({ baseUrl: 'http://127.0.0.1:9', auth: { accessToken: 'x' }, logger: false, events: { outboxFile: ${OUTBOX}, handleSigterm: false } });
  c.fetch(new Request('http://site.test/svc/visitor')).then(async (r) => {
    console.log(JSON.stringify({ status: r.status, body: await r.json(), csp: r.headers.get('content-security-policy') !== null, getVisitor: await getVisitor('') }));
    await c.close();
  });`;
/** Makes `express` unresolvable: for require() (a preload patching the CommonJS loader) and for
 * import (a module resolution hook). */
const NO_EXPRESS_CJS = `const M = require('node:module'); const load = M._load;
  M._load = function (request, ...rest) { if (request == 'express' || request.startsWith('express/')) throw new Error('express is not installed'); return load.call(this, request, ...rest); };`;
const NO_EXPRESS_ESM = `data:text/javascript,${encodeURIComponent(`import { register } from 'node:module';
  register('data:text/javascript,' + encodeURIComponent("export async function resolve(s, c, next) { if (s == 'express' || s.startsWith('express/')) throw new Error('express is not installed'); return next(s, c); }"));`)}`;

describe('package', () => {
  it('loads as ESM through the exports map', async () => {
    const code = `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);
      import express from 'express'; import { createCompanion } from '@svc/companion'; ${MOUNT}`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT });
    expect(JSON.parse(stdout)).toMatchObject({
      status: 200,
      body: { known: false },
      scripts: { tracker: expect.stringMatching(/^tracker\.\w+\.js$/) },
    });
  });

  it('loads as CommonJS through the exports map', async () => {
    const code = `const express = require('express'); const { createCompanion } = require('@svc/companion'); ${MOUNT}`;
    const { stdout } = await run(process.execPath, ['-e', code], { cwd: ROOT });
    expect(JSON.parse(stdout)).toMatchObject({
      status: 200,
      body: { known: false },
      scripts: { tracker: expect.stringMatching(/^tracker\.\w+\.js$/) },
    });
  });

  it('loads the fetch entry as ESM without express', async () => {
    const code = `import { createCompanion, getVisitor } from '@svc/companion/fetch'; ${FETCH}`;
    const { stdout } = await run(process.execPath, ['--import', NO_EXPRESS_ESM, '--input-type=module', '-e', code], {
      cwd: ROOT,
    });
    expect(JSON.parse(stdout)).toEqual({
      status: 200,
      body: { known: false },
      csp: true,
      getVisitor: { known: false },
    });
  });

  it('loads the fetch entry as CommonJS without express', async () => {
    const code = `${NO_EXPRESS_CJS} const { createCompanion, getVisitor } = require('@svc/companion/fetch'); ${FETCH}`;
    const { stdout } = await run(process.execPath, ['-e', code], { cwd: ROOT });
    expect(JSON.parse(stdout)).toEqual({
      status: 200,
      body: { known: false },
      csp: true,
      getVisitor: { known: false },
    });
  });

  it('checks that a blocked express is blocked', async () => {
    const esm = run(
      process.execPath,
      ['--import', NO_EXPRESS_ESM, '--input-type=module', '-e', `import express from 'express';`],
      { cwd: ROOT },
    );
    await expect(esm).rejects.toThrow(/express is not installed/);
    await expect(run(process.execPath, ['-e', `${NO_EXPRESS_CJS} require('express');`], { cwd: ROOT })).rejects.toThrow(
      /express is not installed/,
    );
  });

  it('gives the fetch entry types that name no Express module', () => {
    // From dist/types/fetch.d.ts, every declaration file it reaches through relative imports.
    const dir = join(ROOT, 'packages/companion/dist/types');
    const seen = new Set<string>();
    const visit = (file: string): string[] => {
      if (seen.has(file)) return [];
      seen.add(file);
      const text = readFileSync(join(dir, file), 'utf8');
      const specs = [...text.matchAll(/(?:from|import\()\s*['"]([^'"]+)['"]/g)].map((m) => m[1]);
      return specs.flatMap((spec) =>
        spec.startsWith('.')
          ? visit(relative(dir, resolve(dir, dirname(file), spec)).replace(/(\.d\.ts|\.js)?$/, '.d.ts'))
          : [`${file}: ${spec}`],
      );
    };
    const external = visit('fetch.d.ts');
    expect(seen.size).toBeGreaterThan(5);
    expect(external.filter((e) => /: express(-rate-limit)?$|: @types\/express/.test(e))).toEqual([]);
  });
});
