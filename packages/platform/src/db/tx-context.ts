/** State that belongs to one transaction (the contact changes a request gathers, the analytics
 * totals of a collector batch): `bind` gives a handle that carries it, and savepoints taken on
 * that handle carry it too. A module-level variable would do only while one transaction's body
 * runs at a time, as on SQLite; on PostgreSQL requests' transactions interleave. */
import type { Queryable } from './engine';

/** The handle a bound handle was made from: contexts nest (a collector batch's sessions around
 * its analytics totals), and a handle carries every context of the handles it was made from. */
const PARENT = Symbol('tx-context parent');
type Bound = Queryable & { [PARENT]?: Queryable };

export function txContext<C>() {
  const contexts = new WeakMap<Queryable, C>();
  const bind = <Q extends Queryable>(db: Q, context: C): Q => {
    const handle = { ...db, tx: (fn) => db.tx((t) => fn(bind(t, context))), [PARENT]: db } as Q;
    contexts.set(handle, context);
    return handle;
  };
  return {
    bind,
    /** The context `db` carries, if any. */
    of(db: Queryable): C | undefined {
      for (let h: Bound | undefined = db; h; h = h[PARENT]) {
        const context = contexts.get(h);
        if (context !== undefined) return context;
      }
      return undefined;
    },
  };
}
