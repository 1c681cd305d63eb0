/** The built package as an app would load it: ESM and CJS through the exports map (`npm run
 * build` first), each calling the real platform from a separate Node process. */
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

const run = promisify(execFile);
const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PKG = fileURLToPath(new URL('..', import.meta.url));

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
  await clientFor(t).contacts.create({ properties: [{ property: 'email', value: 'built@x.test' }] });
});
afterAll(() => t.close());

/** Runs `code` in a fresh Node from the repository root, with the platform's address and a token. */
async function node(args: string[], code: string) {
  const env = { ...process.env, BASE_URL: t.baseUrl, TOKEN: t.portals[0].privateAppToken };
  const { stdout } = await run(process.execPath, [...args, '-e', code], { cwd: ROOT, env });
  return JSON.parse(stdout);
}

const CALL = `const c = createClient({ baseUrl: process.env.BASE_URL, auth: { accessToken: process.env.TOKEN } });
  const stats = await c.contacts.statistics();`;

describe('package', () => {
  it('loads as ESM through the exports map', async () => {
    const out = await node(
      ['--input-type=module'],
      `import { createClient } from '@svc/client';
      ${CALL}
      console.log(JSON.stringify({ contacts: stats.contacts, url: import.meta.resolve('@svc/client') }));`,
    );
    expect(out.contacts).toBe(1);
    expect(out.url).toMatch(/packages\/client\/dist\/index\.js$/);
  });

  it('loads as CommonJS, without zod or the catalog at run time', async () => {
    const out = await node(
      [],
      `const { createClient } = require('@svc/client');
      (async () => {
        ${CALL}
        const loaded = Object.keys(require.cache);
        console.log(JSON.stringify({ contacts: stats.contacts, file: require.resolve('@svc/client'), zod: loaded.some((f) => /node_modules\\/zod\\//.test(f)), api: loaded.some((f) => /packages\\/api\\//.test(f)) }));
      })();`,
    );
    expect(out).toMatchObject({ contacts: 1, zod: false, api: false });
    expect(out.file).toMatch(/packages\/client\/dist\/index\.cjs$/);
  });

  it('ships type declarations where package.json points', () => {
    const pkg = JSON.parse(readFileSync(`${PKG}/package.json`, 'utf8'));
    expect(pkg.exports['.']).toEqual({
      types: './dist/types/index.d.ts',
      import: './dist/index.js',
      require: './dist/index.cjs',
    });
    expect(existsSync(`${PKG}/dist/types/index.d.ts`)).toBe(true);
    expect(readFileSync(`${PKG}/dist/types/index.d.ts`, 'utf8')).toContain('createClient');
  });
});
