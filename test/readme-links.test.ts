/** Every README's links resolve inside the repository: a relative link names a file or directory
 * that exists here (its #anchor aside), never one outside the clone (`../shared/...` exists only
 * on the machine that wrote it). Test files a README cites by path exist too. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SKIP = new Set(['node_modules', '.git', 'dist', '.data', '.bench-peers', 'test-results']);

function readmes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return readmes(path);
    return e.name == 'README.md' ? [path] : [];
  });
}

/** Problems with one README's links and cited test files. */
export function brokenLinks(file: string, text: string, root = ROOT): string[] {
  const where = relative(root, file);
  const wrong: string[] = [];
  // Code blocks hold examples, not links.
  const prose = text.replace(/```[\s\S]*?```/g, '');
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z]+:/i.test(target) || target.startsWith('#')) continue;
    const path = resolve(dirname(file), decodeURIComponent(target.split('#')[0]));
    if (!path.startsWith(root)) wrong.push(`${where}: ${target} points outside the repository`);
    else if (!existsSync(path)) wrong.push(`${where}: ${target} does not exist`);
  }
  // A path in backticks that leaves the clone (`../shared/spec.md`) is a dead end for a reader too.
  for (const [, cited] of prose.matchAll(/`(\.\.\/[^`\s]+)`/g)) {
    if (!resolve(dirname(file), cited).startsWith(root)) wrong.push(`${where}: names ${cited}, outside the repository`);
  }
  // `test/foo.test.ts` or `packages/x/test/foo.test.ts` named in the text: relative to the README
  // or to the repository root.
  for (const [, cited] of prose.matchAll(/`((?:[\w.-]+\/)*[\w.-]+\.test\.ts)`/g)) {
    if (!existsSync(resolve(dirname(file), cited)) && !existsSync(resolve(root, cited))) wrong.push(`${where}: cites ${cited}, which does not exist`);
  }
  return wrong;
}

describe('README links', () => {
  it('reports a link out of the repository, a missing file and a missing cited test', () => {
    const file = join(ROOT, 'packages/platform/README.md');
    const text = 'See [the spec](../../../shared/spec.md), `../../../shared/ref.md`, [gone](src/nothing.ts), [ok](src/app.ts#L1), [web](https://x.test) and `test/nothing.test.ts`.';
    expect(brokenLinks(file, text)).toEqual([
      'packages/platform/README.md: ../../../shared/spec.md points outside the repository',
      'packages/platform/README.md: src/nothing.ts does not exist',
      'packages/platform/README.md: names ../../../shared/ref.md, outside the repository',
      'packages/platform/README.md: cites test/nothing.test.ts, which does not exist',
    ]);
  });

  it('resolves every link of every README inside the repository', () => {
    const files = readmes(ROOT);
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(files.flatMap((f) => brokenLinks(f, readFileSync(f, 'utf8')))).toEqual([]);
  });
});
