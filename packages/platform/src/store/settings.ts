/** Portal settings (§4.10, reference §13): name → string value. */
import { type Queryable, sql } from '../db/engine';
import { notFound } from '../domain/errors';

const q = {
  all: sql<[number], { name: string; value: string }>('SELECT name, value FROM settings WHERE portal_id = ? ORDER BY name'),
  one: sql<[number, string], { name: string; value: string }>('SELECT name, value FROM settings WHERE portal_id = ? AND name = ?'),
  put: sql<[number, string, string, number]>(
    'INSERT INTO settings (portal_id, name, value, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (portal_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
  ),
  remove: sql<[number, string]>('DELETE FROM settings WHERE portal_id = ? AND name = ?'),
};

export function settingStore(now: () => number) {
  const missing = (name: string) => notFound(`no setting named ${name}`);

  return {
    /** Every setting, or the one named. */
    async get(db: Queryable, portalId: number, name?: string) {
      if (name === undefined) return db.all(q.all, portalId);
      const one = await db.get(q.one, portalId, name);
      if (!one) throw missing(name);
      return one;
    },
    /** The setting's value, or undefined when there is none. */
    value: async (db: Queryable, portalId: number, name: string): Promise<string | undefined> => (await db.get(q.one, portalId, name))?.value,
    async put(db: Queryable, portalId: number, { name, value }: { name: string; value: string }) {
      await db.run(q.put, portalId, name, value, now());
    },
    async remove(db: Queryable, portalId: number, name: string) {
      if (!(await db.run(q.remove, portalId, name))) throw missing(name);
    },
  };
}

export type SettingStore = ReturnType<typeof settingStore>;
