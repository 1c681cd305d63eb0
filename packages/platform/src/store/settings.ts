/** Portal settings (§4.10, reference §13): name → string value. */
import { type Engine, type Queryable, sql } from '../db/engine';
import { sharedCache } from '../db/shared-cache';
import { notFound } from '../domain/errors';

const q = {
  all: sql<[number], { name: string; value: string }>(
    'SELECT name, value FROM settings WHERE portal_id = ? ORDER BY name',
  ),
  one: sql<[number, string], { name: string; value: string }>(
    'SELECT name, value FROM settings WHERE portal_id = ? AND name = ?',
  ),
  put: sql<[number, string, string, number]>(
    'INSERT INTO settings (portal_id, name, value, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (portal_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  ),
  remove: sql<[number, string]>('DELETE FROM settings WHERE portal_id = ? AND name = ?'),
};

export function settingStore(engine: Engine, now: () => number) {
  const missing = (name: string) => notFound(`no setting named ${name}`);
  // Settings the platform itself reads on hot paths (the collector's own domains) are cached.
  const key = (portalId: number, name: string) => `settings/${portalId}/${name}`;
  const cache = sharedCache(engine, async (db, k) => {
    const [, portalId, ...name] = k.split('/'); // a name may hold '/'
    return (await db.get(q.one, Number(portalId), name.join('/')))?.value ?? null;
  });

  return {
    /** Every setting, or the one named. */
    async get(db: Queryable, portalId: number, name?: string) {
      if (name === undefined) return db.all(q.all, portalId);
      const one = await db.get(q.one, portalId, name);
      if (!one) throw missing(name);
      return one;
    },
    /** The setting's value, or undefined when there is none. */
    value: async (db: Queryable, portalId: number, name: string): Promise<string | undefined> =>
      (await cache.get(db, key(portalId, name))) ?? undefined,
    async put(db: Queryable, portalId: number, { name, value }: { name: string; value: string }) {
      await db.run(q.put, portalId, name, value, now());
      await cache.changed(db, key(portalId, name));
    },
    async remove(db: Queryable, portalId: number, name: string) {
      if (!(await db.run(q.remove, portalId, name))) throw missing(name);
      await cache.changed(db, key(portalId, name));
    },
  };
}

export type SettingStore = ReturnType<typeof settingStore>;
