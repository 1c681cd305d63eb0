/** The packages depend on each other in one direction: protocol → api → client, tracker, forms,
 * platform → companion → demo (the browser bundles and the platform never reach up to the
 * companion, nothing reaches the demo). This reads every source file's `@svc/*` imports (and
 * module specifiers resolved at run time, such as the companion's `@svc/tracker/tracker.js`) and
 * fails naming each one that goes against that direction, and each relative import that leaves
 * its package. The layers inside the platform are the next step (issue 14, point 4). */
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** What each package's source may import; one row per package, the direction as data. */
const MAY_IMPORT: Record<string, readonly string[]> = {
  protocol: [],
  api: ['protocol'],
  tracker: ['protocol'],
  // The embed runs on pages that have the tracker: it reads the visitor's utk the tracker's way.
  forms: ['protocol', 'tracker'],
  client: ['protocol', 'api'],
  // The platform serves the built browser bundles (http/scripts.ts), resolved at run time.
  platform: ['protocol', 'api', 'tracker', 'forms'],
  companion: ['protocol', 'api', 'client', 'tracker', 'forms'],
  // The React bindings load the tracker and the embed (each when first needed).
  react: ['tracker', 'forms'],
};

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.(ts|mts|mjs|js)$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Module specifiers of a file: imports and requires, and (`runtime`) paths resolved at run
 * time, which the companion uses for the optional `@svc/forms` bundle. */
function specifiers(text: string, runtime = true) {
  const pattern = runtime
    ? /(?:from\s+|import\s*\(\s*|require\s*\(\s*|resolveFile\s*\(\s*|import\s+)['"]([^'"]+)['"]/g
    : /(?:from\s+|import\s*\(\s*|require\s*\(\s*|import\s+)['"]([^'"]+)['"]/g;
  return [...text.matchAll(pattern)].map((m) => m[1]);
}

/** What is wrong with one file's imports: `@svc/*` against the direction, or out of the package. */
function violations(pkg: string, file: string, text: string) {
  const src = join(ROOT, 'packages', pkg, 'src');
  const where = relative(ROOT, file);
  const wrong: string[] = [];
  for (const spec of specifiers(text)) {
    const svc = /^@svc\/([a-z-]+)/.exec(spec);
    if (svc && svc[1] != pkg && !MAY_IMPORT[pkg].includes(svc[1])) wrong.push(`${where} imports ${spec}`);
    if (spec.startsWith('.') && !resolve(file, '..', spec).startsWith(src + '/'))
      wrong.push(`${where} reaches out of its package: ${spec}`);
  }
  return wrong;
}

describe('the direction of imports between packages', () => {
  it('knows every package', () => {
    const packages = readdirSync(join(ROOT, 'packages')).sort();
    expect(Object.keys(MAY_IMPORT).sort()).toEqual(packages);
  });

  it('reports an upward import and a relative import out of the package', () => {
    const file = join(ROOT, 'packages/platform/src/http/example.ts');
    const text = `import { createCompanion } from '@svc/companion';\nimport { x } from '../../../client/src/index';\nimport { y } from '../db/open';`;
    expect(violations('platform', file, text)).toEqual([
      'packages/platform/src/http/example.ts imports @svc/companion',
      'packages/platform/src/http/example.ts reaches out of its package: ../../../client/src/index',
    ]);
  });

  it('has no import against the direction, and no relative import out of a package', () => {
    const wrong = Object.keys(MAY_IMPORT).flatMap((pkg) =>
      sources(join(ROOT, 'packages', pkg, 'src')).flatMap((file) => violations(pkg, file, readFileSync(file, 'utf8'))),
    );
    expect(wrong).toEqual([]);
  });

  it('keeps Node built-ins out of the protocol but for its Node-only entry, which the index does not re-export', () => {
    const src = join(ROOT, 'packages/protocol/src');
    const wrong = sources(src).flatMap((file) => {
      const name = relative(src, file);
      const outside = specifiers(readFileSync(file, 'utf8')).filter((s) => !s.startsWith('.'));
      const allowed = name == 'signed-token.ts' ? ['node:crypto'] : [];
      return outside.filter((s) => !allowed.includes(s)).map((s) => `packages/protocol/src/${name} imports ${s}`);
    });
    expect(wrong).toEqual([]);
    expect(readFileSync(join(src, 'index.ts'), 'utf8')).not.toMatch(/signed-token/);
  });

  it('declares in package.json the packages it imports (run-time paths such as the optional forms bundle aside)', () => {
    const missing: string[] = [];
    for (const [pkg, allowed] of Object.entries(MAY_IMPORT)) {
      const manifest = JSON.parse(readFileSync(join(ROOT, 'packages', pkg, 'package.json'), 'utf8'));
      const declared = { ...manifest.dependencies, ...manifest.peerDependencies };
      const used = new Set(
        sources(join(ROOT, 'packages', pkg, 'src')).flatMap((f) =>
          specifiers(readFileSync(f, 'utf8'), false)
            .map((s) => /^@svc\/([a-z-]+)/.exec(s)?.[1])
            .filter((n): n is string => !!n && n != pkg && allowed.includes(n)),
        ),
      );
      for (const name of used)
        if (!(`@svc/${name}` in declared)) missing.push(`packages/${pkg} uses @svc/${name} but does not declare it`);
    }
    expect(missing).toEqual([]);
  });
});
