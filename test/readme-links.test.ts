/** Every README's links resolve inside the repository: a relative link names a file or directory
 * that exists here, never one outside the clone (`../shared/...` exists only on the machine that
 * wrote it), and its #anchor, into a Markdown file (or the README itself), names a heading there.
 * Test files a README cites by path exist too. */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SKIP = new Set(['node_modules', '.git', 'dist', '.data', '.bench-peers', 'test-results', '.next']);

function readmes(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (SKIP.has(e.name)) return [];
    const path = join(dir, e.name);
    if (e.isDirectory()) return readmes(path);
    // The guides in docs/ (and its folders: docs/performance/) are READMEs too, for this purpose.
    const inDocs = relative(ROOT, dir).split('/')[0] == 'docs';
    return e.name == 'README.md' || (e.name.endsWith('.md') && inDocs) ? [path] : [];
  });
}

/** A heading's anchor as GitHub makes it: the text without markup, lower case, punctuation
 * dropped, spaces as dashes. */
export function slug(heading: string) {
  return heading
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/<[^>]+>/g, '')
    .trim()
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors a Markdown text offers: its headings' (a repeated one gets -1, -2, …) and explicit
 * `id="…"` or `name="…"` attributes. */
export function anchors(text: string) {
  const found = new Set<string>();
  const seen = new Map<string, number>();
  for (const [, heading] of text.replace(/```[\s\S]*?```/g, '').matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    found.add(n ? `${base}-${n}` : base);
  }
  for (const [, id] of text.matchAll(/\b(?:id|name)="([^"]+)"/g)) found.add(id);
  return found;
}

/** Problems with one README's links and cited test files. */
export function brokenLinks(file: string, text: string, root = ROOT): string[] {
  const where = relative(root, file);
  const wrong: string[] = [];
  // Code blocks hold examples, not links.
  const prose = text.replace(/```[\s\S]*?```/g, '');
  for (const [, target] of prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)) {
    if (/^[a-z]+:/i.test(target)) continue;
    const [pathPart, anchor] = target.split('#');
    const path = pathPart ? resolve(dirname(file), decodeURIComponent(pathPart)) : file;
    if (!path.startsWith(root)) wrong.push(`${where}: ${target} points outside the repository`);
    else if (!existsSync(path)) wrong.push(`${where}: ${target} does not exist`);
    else if (anchor !== undefined && path.endsWith('.md')) {
      const offered = path == file ? anchors(text) : anchors(readFileSync(path, 'utf8'));
      if (!offered.has(decodeURIComponent(anchor)))
        wrong.push(`${where}: ${target} names no heading of ${relative(root, path)}`);
    }
  }
  // A path in backticks that leaves the clone (`../shared/spec.md`) is a dead end for a reader too.
  for (const [, cited] of prose.matchAll(/`(\.\.\/[^`\s]+)`/g)) {
    if (!resolve(dirname(file), cited).startsWith(root)) wrong.push(`${where}: names ${cited}, outside the repository`);
  }
  // `test/foo.test.ts` or `packages/x/test/foo.test.ts` named in the text: relative to the README
  // or to the repository root.
  for (const [, cited] of prose.matchAll(/`((?:[\w.-]+\/)*[\w.-]+\.test\.ts)`/g)) {
    if (!existsSync(resolve(dirname(file), cited)) && !existsSync(resolve(root, cited)))
      wrong.push(`${where}: cites ${cited}, which does not exist`);
  }
  return wrong;
}

describe('README links', () => {
  it('reports a link out of the repository, a missing file and a missing cited test', () => {
    const file = join(ROOT, 'packages/platform/README.md');
    const text =
      'See [the spec](../../../shared/spec.md), `../../../shared/ref.md`, [gone](src/nothing.ts), [ok](src/app.ts#L1), [web](https://x.test) and `test/nothing.test.ts`.';
    expect(brokenLinks(file, text)).toEqual([
      'packages/platform/README.md: ../../../shared/spec.md points outside the repository',
      'packages/platform/README.md: src/nothing.ts does not exist',
      'packages/platform/README.md: names ../../../shared/ref.md, outside the repository',
      'packages/platform/README.md: cites test/nothing.test.ts, which does not exist',
    ]);
  });

  it("checks an anchor against the target's headings as GitHub names them", () => {
    const md =
      '# svc\n## Quick start\n### `npm start`: the build\n## Several instances (shared mode) on Redis\n## Notes\n## Notes\n```\n# not a heading\n```\n<a id="kept"></a>';
    expect([...anchors(md)]).toEqual([
      'svc',
      'quick-start',
      'npm-start-the-build',
      'several-instances-shared-mode-on-redis',
      'notes',
      'notes-1',
      'kept',
    ]);
    const file = join(ROOT, 'README.md');
    const text = `${md}\n[a](#quick-start) [b](#notes-1) [c](#kept) [d](#not-a-heading) [e](packages/companion/README.md#nowhere) [f](packages/platform/src/app.ts#L1)`;
    expect(brokenLinks(file, text)).toEqual([
      'README.md: #not-a-heading names no heading of README.md',
      'README.md: packages/companion/README.md#nowhere names no heading of packages/companion/README.md',
    ]);
  });

  it('resolves every link of every README inside the repository', () => {
    const files = readmes(ROOT);
    expect(files.length).toBeGreaterThanOrEqual(8);
    expect(files).toContain(join(ROOT, 'docs/own-site.md'));
    expect(files.flatMap((f) => brokenLinks(f, readFileSync(f, 'utf8')))).toEqual([]);
  });
});
