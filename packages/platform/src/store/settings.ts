/** Portal settings (§4.10, reference §13): name → string value. */
import type { Db } from '../db/open';
import { notFound } from '../domain/errors';

export function settingStore(db: Db, now: () => number) {
  const q = {
    all: db.prepare<[number], { name: string; value: string }>('SELECT name, value FROM settings WHERE portal_id = ? ORDER BY name'),
    one: db.prepare<[number, string], { name: string; value: string }>('SELECT name, value FROM settings WHERE portal_id = ? AND name = ?'),
    put: db.prepare<[number, string, string, number]>(
      'INSERT INTO settings (portal_id, name, value, updated_at) VALUES (?, ?, ?, ?) ON CONFLICT (portal_id, name) DO UPDATE SET value = excluded.value, updated_at = excluded.updated_at',
    ),
    remove: db.prepare<[number, string]>('DELETE FROM settings WHERE portal_id = ? AND name = ?'),
  };
  const missing = (name: string) => notFound(`no setting named ${name}`);

  return {
    /** Every setting, or the one named. */
    get(portalId: number, name?: string) {
      if (name === undefined) return q.all.all(portalId);
      const one = q.one.get(portalId, name);
      if (!one) throw missing(name);
      return one;
    },
    put: (portalId: number, { name, value }: { name: string; value: string }) => void q.put.run(portalId, name, value, now()),
    remove(portalId: number, name: string) {
      if (!q.remove.run(portalId, name).changes) throw missing(name);
    },
  };
}
