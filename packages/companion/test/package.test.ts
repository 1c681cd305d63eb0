/** The built package as an app loads it (`npm run build` first): ESM and CommonJS through the
 * exports map, each mounting the router in an Express app in a fresh Node process. */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
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

describe('package', () => {
  it('loads as ESM through the exports map', async () => {
    const code = `import { createRequire } from 'node:module'; const require = createRequire(import.meta.url);
      import express from 'express'; import { createCompanion } from '@svc/companion'; ${MOUNT}`;
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', code], { cwd: ROOT });
    expect(JSON.parse(stdout)).toMatchObject({ status: 200, body: { known: false }, scripts: { tracker: expect.stringMatching(/^tracker\.\w+\.js$/) } });
  });

  it('loads as CommonJS through the exports map', async () => {
    const code = `const express = require('express'); const { createCompanion } = require('@svc/companion'); ${MOUNT}`;
    const { stdout } = await run(process.execPath, ['-e', code], { cwd: ROOT });
    expect(JSON.parse(stdout)).toMatchObject({ status: 200, body: { known: false }, scripts: { tracker: expect.stringMatching(/^tracker\.\w+\.js$/) } });
  });
});
