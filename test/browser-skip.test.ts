/** The rule for tests that need Chromium: without the browser they are skipped locally with a
 * message, and fail under CI=true. Every test file that launches Chromium goes through the one
 * helper, test/browser/chromium.ts; this file finds them all and runs them (in a child vitest)
 * with CHROMIUM_PATH pointing at nothing, once as a developer would and once as CI. */
import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const HELPER = 'test/browser/chromium.ts';

function tsFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (['node_modules', 'dist'].includes(e.name)) return [];
    const path = join(dir, e.name);
    return e.isDirectory() ? tsFiles(path) : e.name.endsWith('.ts') ? [relative(ROOT, path)] : [];
  });
}
const testTrees = [
  join(ROOT, 'test'),
  ...readdirSync(join(ROOT, 'packages')).map((p) => join(ROOT, 'packages', p, 'test')),
];
const ME = relative(ROOT, fileURLToPath(import.meta.url));
const sources = testTrees
  .flatMap((dir) => {
    try {
      return tsFiles(dir);
    } catch {
      return [];
    }
  })
  .filter((f) => f != ME); // its patterns name playwright-core too
const text = (file: string) => readFileSync(join(ROOT, file), 'utf8');
/** Test files that reach Chromium through the helper (directly or through a helper of their own). */
const browserTests = sources.filter(
  (f) => f.endsWith('.test.ts') && /from '[./]*(?:test\/)?browser\/chromium'|from '\.\/chromium'/.test(text(f)),
);

/** vitest on `files` in a child process, with `env` on top of ours (less vitest's own markers). */
function vitest(files: string[], env: Record<string, string>) {
  const base = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('VITEST') && k != 'CI'));
  const run = spawnSync(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', '--project', 'all', ...files], {
    cwd: ROOT,
    encoding: 'utf8',
    env: { ...base, NO_COLOR: '1', FORCE_COLOR: '0', ...env },
    timeout: 120_000,
  });
  return { status: run.status, out: `${run.stdout}${run.stderr}` };
}

describe('tests that need Chromium', () => {
  it('are found, and only the helper launches the browser itself', () => {
    expect(browserTests).toContain('packages/companion/test/preferences-page.test.ts');
    expect(browserTests.length).toBeGreaterThanOrEqual(6);
    // Any test file that touches playwright-core at all (types included) is among them.
    for (const file of sources.filter((f) => f.endsWith('.test.ts') && /from 'playwright-core'/.test(text(f))))
      expect(browserTests, file).toContain(file);
    // A value import of playwright-core's launcher anywhere else would skip the rule.
    const launchers = sources.filter((f) =>
      /import\s*\{[^}]*\bchromium\b[^}]*\}\s*from 'playwright-core'/.test(text(f)),
    );
    expect(launchers).toEqual([HELPER]);
    // Every suite of a browser test file is skipped without the browser.
    for (const file of browserTests) {
      const suites = text(file).match(/^describe[\w.]*\(?[^'"`]*/gm) ?? [];
      expect(suites.length, file).toBeGreaterThan(0);
      for (const suite of suites) expect(suite, file).toMatch(/^describe\.skipIf\(!haveChromium\)/);
    }
  });

  it('are skipped with a message when Chromium is missing, and fail under CI=true', () => {
    const local = vitest(browserTests, { CHROMIUM_PATH: '/nonexistent/chromium' });
    expect(local.out).toContain(
      'Chromium not found at /nonexistent/chromium: the browser tests are skipped (apt-get install -y chromium, or set CHROMIUM_PATH)',
    );
    expect(local.out).toMatch(new RegExp(`Test Files\\s+${browserTests.length} skipped`));
    expect(local.status, local.out).toBe(0);

    const ci = vitest(browserTests, { CHROMIUM_PATH: '/nonexistent/chromium', CI: 'true' });
    expect(ci.out).toContain('Chromium not found at /nonexistent/chromium: CI must install it');
    expect(ci.out).toMatch(new RegExp(`Test Files\\s+${browserTests.length} failed`));
    expect(ci.status).toBe(1);
  }, 240_000);

  it('count a directory or a file that is not executable at CHROMIUM_PATH as missing', () => {
    const local = vitest(['packages/companion/test/preferences-page.test.ts'], { CHROMIUM_PATH: ROOT });
    expect(local.out).toContain(`Chromium not found at ${ROOT}`);
    expect(local.status, local.out).toBe(0);
  }, 120_000);
});
