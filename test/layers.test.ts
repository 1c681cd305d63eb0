/** The rooms inside each package, as its README's Layout section shows them: a file imports only
 * from its own room or the rooms below it. Every source file must be in exactly one room, so a
 * new file is placed on purpose. In the platform, SQL lives in store/ and db/ only. Within a room
 * too, no file imports itself through others: no import circle in any package's src/.
 * test/imports.test.ts keeps the direction between packages. */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** Rooms from top to bottom; each lists files or directories (ending in `/`) under `src/`. */
const ROOMS: Record<string, readonly (readonly string[])[]> = {
  protocol: [
    ['index.ts'],
    ['cookies.ts', 'collector.ts', 'form-submission.ts', 'free-mail.ts', 'webhooks.ts', 'signed-token.ts'],
    ['utk.ts'],
  ],
  api: [['index.ts', 'openapi.ts'], ['catalog.ts'], ['routes/'], ['schemas/'], ['route.ts', 'common.ts']],
  tracker: [['auto.ts', 'index.ts'], ['tracker.ts'], ['cookies.ts', 'transport.ts', 'spa.ts'], ['ids.ts', 'types.ts']],
  forms: [
    ['auto.ts', 'index.ts'],
    ['create.ts', 'capture.ts'],
    ['render.ts', 'validate.ts', 'submit.ts', 'events.ts', 'values.ts', 'style.ts', 'evidence.ts'],
    ['fields.ts', 'entry.ts', 'messages.ts'],
    ['dom.ts', 'sanitize.ts', 'script.ts', 'page.ts', 'types.ts'],
  ],
  client: [
    ['index.ts', 'client.ts'],
    ['request.ts', 'paging.ts', 'form-submit.ts', 'track-event.ts'],
    ['steps/'],
    ['auth.ts', 'limiter.ts', 'retry.ts', 'types.ts'],
    [
      'errors.ts',
      'token-store.ts',
      'budget.ts',
      'route-table.ts',
      'url.ts',
      'encoding.ts',
      'call-options.ts',
      'clock.ts',
    ],
  ],
  // The platform: each request goes down http → handlers → services → store → db; jobs/ (timers,
  // outbound HTTP, job claims) runs on the stores and is started by the wiring (services/wiring.ts);
  // domain/ holds the one error type every room may throw; the top files put the servers together
  // (or are tools: CLI, seeding).
  platform: [
    [
      'app.ts',
      'cli.ts',
      'migrate-command.ts',
      'index.ts',
      'credentials-file.ts',
      'seed.ts',
      'seed-contacts.ts',
      'background-errors.ts',
      'snapshot-flags.ts',
      'twin-parts.ts',
      'testing.ts',
      'admin-client.ts',
      'exec-command.ts',
    ],
    ['http/', 'inspector/', 'admin/'],
    ['handlers/'],
    ['services/'],
    ['jobs/'],
    ['store/'],
    ['db/', 'domain/', 'util/'],
  ],
  // The companion: two doors (Express, fetch) over one core; the core's routes; the parts they use.
  companion: [
    ['cli.ts', 'config.ts', 'index.ts', 'fetch.ts'],
    ['doors/'],
    ['companion.ts', 'get-visitor.ts', 'routes.ts', 'settings.ts'],
    ['shared/mode.ts'],
    [
      'visitor.ts',
      'forms.ts',
      'form-visitor.ts',
      'health.ts',
      'subscriptions/',
      'proxy/',
      'events/',
      'webhooks/',
      'shared/budget.ts',
      'shared/token-store.ts',
      'shared/cache.ts',
      'shared/event-stream.ts',
    ],
    ['http/', 'shared/redis.ts'],
    ['ttl-cache.ts', 'utk.ts', 'options.ts'],
  ],
  react: [['index.ts'], ['svc-tracker.ts', 'svc-form.ts', 'privacy-consent.ts'], ['commands.ts']],
};

/** The room index of a path under src/ (0 is the top), or undefined when no room names it. A
 * file named exactly wins over its directory (`shared/mode.ts` over `shared/`). */
export function roomOf(rooms: readonly (readonly string[])[], path: string): number | undefined {
  const exact = rooms.findIndex((r) => r.includes(path));
  if (exact >= 0) return exact;
  const dir = rooms.findIndex((r) => r.some((e) => e.endsWith('/') && path.startsWith(e)));
  return dir >= 0 ? dir : undefined;
}

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return sources(path);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** What is wrong with one file: not in a room, or importing a room above its own. */
export function violations(rooms: readonly (readonly string[])[], src: string, file: string, text: string): string[] {
  const from = relative(src, file);
  const mine = roomOf(rooms, from);
  if (mine === undefined) return [`${from} is in no room`];
  const wrong: string[] = [];
  for (const [, spec] of text.matchAll(/(?:from\s+|import\s*\(\s*)['"](\.[^'"]+)['"]/g)) {
    const target = relative(src, resolve(dirname(file), spec)).replace(/(\.js)?$/, '');
    const to = roomOf(rooms, target + '.ts') ?? roomOf(rooms, target + '/index.ts');
    if (to !== undefined && to < mine) wrong.push(`${from} imports ${spec}, a room above its own`);
  }
  return wrong;
}

/** The files among `known` that `file` imports by a relative specifier (`./x`, `./x.js`, a folder's
 * index), type-only imports too: a circle of types still ties the files' meaning together. */
export function importsOf(file: string, text: string, known: ReadonlySet<string>): string[] {
  const found: string[] = [];
  for (const [, spec] of text.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)['"](\.[^'"]+)['"]/g)) {
    const base = resolve(dirname(file), spec).replace(/\.js$/, '');
    const target = [base, `${base}.ts`, `${base}.tsx`, join(base, 'index.ts'), join(base, 'index.tsx')].find((p) =>
      known.has(p),
    );
    if (target) found.push(target);
  }
  return found;
}

/** Every import circle among the files of `graph` (file → the files it imports), each once: the
 * files of each strongly connected component of two or more (or of a file importing itself),
 * as one way round it from its first file in sorted order back to that file. */
export function circles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  // Tarjan's algorithm: a component is found when the walk returns to its first file.
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const components: string[][] = [];
  const visit = (file: string) => {
    index.set(file, index.size);
    low.set(file, index.get(file)!);
    stack.push(file);
    onStack.add(file);
    for (const next of graph.get(file) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(file, Math.min(low.get(file)!, low.get(next)!));
      } else if (onStack.has(next)) low.set(file, Math.min(low.get(file)!, index.get(next)!));
    }
    if (low.get(file) !== index.get(file)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop()!;
      onStack.delete(member);
      component.push(member);
    } while (member !== file);
    if (component.length > 1 || graph.get(file)?.includes(file)) components.push(component);
  };
  for (const file of [...graph.keys()].sort()) if (!index.has(file)) visit(file);
  // One way round each: the shortest from its first file back to it, within the component.
  return components
    .map((component) => {
      const inside = new Set(component);
      const first = [...component].sort()[0];
      const cameFrom = new Map<string, string>();
      const queue = [first];
      for (let i = 0; i < queue.length && !cameFrom.has(first); i++)
        for (const next of graph.get(queue[i]) ?? [])
          if (inside.has(next) && !cameFrom.has(next)) {
            cameFrom.set(next, queue[i]);
            queue.push(next);
          }
      const way = [first];
      for (let at = cameFrom.get(first)!; at !== first; at = cameFrom.get(at)!) way.unshift(at);
      return [first, ...way];
    })
    .sort((a, b) => a[0].localeCompare(b[0]));
}

/** Files of the platform outside store/ and db/ that run SQL themselves. */
export function sqlOutsideStore(src: string, file: string, text: string): string[] {
  const from = relative(src, file);
  if (/^(store|db)\//.test(from)) return [];
  return /\b(db|database)\s*\.\s*(prepare|exec|pragma)\s*[<(]|\b(SELECT|INSERT INTO|UPDATE|DELETE FROM)\b[^'"`]*\b(FROM|SET|WHERE|VALUES)\b/.test(
    text,
  )
    ? [`${from} runs SQL outside store/ and db/`]
    : [];
}

describe('the rooms inside each package', () => {
  it('reports an import from a room above, and a file in no room', () => {
    const src = join(ROOT, 'packages/client/src');
    const text = `import { createClient } from '../client';\nimport { SvcApiError } from '../errors';`;
    expect(violations(ROOMS.client, src, join(src, 'steps/retry.ts'), text)).toEqual([
      'steps/retry.ts imports ../client, a room above its own',
    ]);
    expect(violations(ROOMS.client, src, join(src, 'stray.ts'), '')).toEqual(['stray.ts is in no room']);
  });

  it('reports SQL in the platform outside store/ and db/', () => {
    const src = join(ROOT, 'packages/platform/src');
    expect(
      sqlOutsideStore(
        src,
        join(src, 'handlers/x.ts'),
        "const q = db.prepare('SELECT tier FROM portals WHERE id = ?');",
      ),
    ).toEqual(['handlers/x.ts runs SQL outside store/ and db/']);
    expect(sqlOutsideStore(src, join(src, 'store/x.ts'), "db.prepare('SELECT 1')")).toEqual([]);
  });

  it('keeps every SQL statement of the platform in store/ and db/', () => {
    const src = join(ROOT, 'packages/platform/src');
    expect(sources(src).flatMap((f) => sqlOutsideStore(src, f, readFileSync(f, 'utf8')))).toEqual([]);
  });

  it('has every file of every package in one room, importing only its own room or below', () => {
    const wrong = Object.entries(ROOMS).flatMap(([pkg, rooms]) => {
      const src = join(ROOT, 'packages', pkg, 'src');
      return sources(src).flatMap((file) =>
        violations(rooms, src, file, readFileSync(file, 'utf8')).map((w) => `${pkg}: ${w}`),
      );
    });
    expect(wrong).toEqual([]);
  });

  it('reports each import circle once, as one way round it', () => {
    const graph = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts', 'd.ts']],
      ['c.ts', ['a.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
      ['f.ts', ['a.ts']],
    ]);
    expect(circles(graph)).toEqual([
      ['a.ts', 'b.ts', 'c.ts', 'a.ts'],
      ['e.ts', 'e.ts'],
    ]);
    const src = join(ROOT, 'packages/platform/src');
    const known = new Set([
      join(src, 'store/contacts/index.ts'),
      join(src, 'store/lists.ts'),
      join(src, 'db/engine.ts'),
    ]);
    const text = "import type { ContactStore } from './contacts';\nimport { sql } from '../db/engine.js';";
    expect(importsOf(join(src, 'store/lists.ts'), text, known)).toEqual([
      join(src, 'store/contacts/index.ts'),
      join(src, 'db/engine.ts'),
    ]);
  });

  it('has no import circle in any package', () => {
    const found = readdirSync(join(ROOT, 'packages')).flatMap((pkg) => {
      const src = join(ROOT, 'packages', pkg, 'src');
      let files: string[];
      try {
        files = sources(src);
      } catch {
        return []; // a package without src/
      }
      const known = new Set(files);
      const graph = new Map(files.map((f) => [f, importsOf(f, readFileSync(f, 'utf8'), known)]));
      return circles(graph).map((way) => `${pkg}: ${way.map((f) => relative(src, f)).join(' → ')}`);
    });
    expect(found).toEqual([]);
  });
});
