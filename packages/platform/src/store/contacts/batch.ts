/** contacts.batch in a handful of statements whatever its size, rather than four or five per
 * contact: the rows are read at once, worked out in memory by the same plan() as a single write,
 * and stored by each engine's way of writing many rows (sql.ts: on PostgreSQL, where each
 * statement is a round trip, one statement over them all). */
import type { Queryable, Transaction } from '../../db/engine';
import { timeOf } from '../../db/tx-clock';
import { isTransient, PlatformError } from '../../domain/errors';
import { isEmail, type PropertyStore } from '../properties';
import {
  type ChangedContact,
  checkWrites,
  type ContactRow,
  type Plan,
  plan,
  propertiesOf,
  type Source,
  type Write,
} from './plan';
import type { ContactSql, HistoryEntry } from './sql';

export interface BatchItem {
  vid?: number;
  email?: string;
  properties: Write[];
}

/** A contact the batch touches: its row (none for a new one) and, in item order, the plans of the
 * items that change it. */
interface Slot {
  row?: ContactRow;
  email: string | null;
  plans: Plan[];
  vid: number;
}

/** A new contact's email was taken by another transaction since the batch looked (PostgreSQL). */
class BatchEmailTaken extends Error {
  constructor() {
    super('a new contact of the batch was made meanwhile');
  }
}

const SOURCE: Source = { type: 'API' };

/** Told of each contact a batch made, with its properties and when it was made. */
export type ContactMade = (
  t: Queryable,
  portalId: number,
  props: Record<string, string>,
  createdAt: number,
) => Promise<unknown>;

export function contactBatchWriter(
  { q, ways }: ContactSql,
  properties: PropertyStore,
  now: () => number,
  onMade: ContactMade = async () => {},
) {
  /** The contacts as planned: one slot per contact, in the order the items first touch them;
   * undefined when the batch must go one item at a time, whose errors name the item: an item is
   * invalid, names a contact that does not exist, or changes a contact's email (which needs the
   * owner checks of a single write). */
  async function planAll(t: Transaction, portalId: number, items: BatchItem[]) {
    if (items.some((i) => !i.vid && !(i.email && isEmail(i.email)))) return undefined;
    const vidSet = new Set<number>();
    const emailSet = new Set<string>();
    for (const i of items) {
      if (i.vid) vidSet.add(i.vid);
      else emailSet.add(i.email!.toLowerCase());
    }
    // Rows locked in vid order, so that two batches touching the same contacts wait for each
    // other instead of deadlocking.
    const vids = [...vidSet].sort((a, b) => a - b);
    const byVid = new Map((vids.length ? await ways.rowsToWrite(t, vids, portalId) : []).map((r) => [r.vid, r]));
    const byEmail = new Map((await ways.rowsByEmails(t, [...emailSet], portalId)).map((r) => [r.email, r]));
    const slots = new Map<number | string, Slot>();
    for (const item of items) {
      const email = item.vid ? undefined : item.email!.toLowerCase();
      const row = item.vid ? byVid.get(item.vid) : byEmail.get(email!);
      if (!row && item.vid) return undefined;
      const key = row ? row.vid : email!;
      let slot = slots.get(key);
      if (!slot) slots.set(key, (slot = { row, email: row ? row.email : email!, plans: [], vid: row?.vid ?? 0 }));
      const writes =
        item.vid || item.properties.some((w) => w.property == 'email')
          ? item.properties
          : [{ property: 'email', value: email! }, ...item.properties];
      // A contact's later items apply to what its earlier ones made of it.
      const last = slot.plans.at(-1);
      const current: ContactRow | undefined = last
        ? {
            vid: slot.vid,
            portal_id: portalId,
            email: last.email,
            properties: JSON.stringify(last.props),
            created_at: slot.plans[0].t,
            updated_at: last.t,
            history_head: null,
          }
        : row;
      let p: Plan;
      try {
        await checkWrites(properties, t, portalId, writes);
        p = plan(current, writes, SOURCE, timeOf(t, now));
      } catch (err) {
        if (err instanceof PlatformError && !isTransient(err)) return undefined;
        throw err;
      }
      if (p.email != slot.email) return undefined;
      if (p.changed) slot.plans.push(p);
    }
    return [...slots.values()];
  }

  /** Stores the planned slots: vids for the new contacts, each contact's history entries (a
   * contact written by several items gets one per item, chained, in rounds), then the rows. */
  async function store(t: Transaction, portalId: number, slots: Slot[]) {
    const fresh = slots.filter((s) => !s.row);
    if (fresh.length) (await t.all(q.nextVids, fresh.length)).forEach(({ id }, i) => (fresh[i].vid = id));
    const heads = new Map(slots.map((s) => [s.vid, s.row?.history_head ?? null]));
    const entries = slots.map((s) => ({ vid: s.vid, plans: s.plans.filter((p) => p.changes) }));
    for (let round = 0; ; round++) {
      const rows = entries.flatMap(({ vid, plans }): HistoryEntry[] =>
        round < plans.length
          ? [{ vid, prev: heads.get(vid) ?? null, t: plans[round].t, changes: plans[round].changes! }]
          : [],
      );
      if (!rows.length) break;
      for (const { vid, seq } of await ways.insertHistories(t, rows, SOURCE.type)) heads.set(vid, seq);
    }
    if (fresh.length) {
      const rows = fresh.map((s) => ({
        vid: s.vid,
        email: s.email,
        properties: JSON.stringify(s.plans.at(-1)!.props),
        created_at: s.plans[0].t,
        updated_at: s.plans.at(-1)!.t,
        head: heads.get(s.vid) ?? null,
      }));
      if ((await ways.insertNumbered(t, rows, portalId)) < fresh.length) throw new BatchEmailTaken();
      for (const s of fresh) await onMade(t, portalId, s.plans.at(-1)!.props, s.plans[0].t);
    }
    const updated = slots
      .filter((s) => s.row && s.plans.length)
      .map((s) => ({
        vid: s.vid,
        properties: JSON.stringify(s.plans.at(-1)!.props),
        updated_at: s.plans.at(-1)!.t,
        history_head: heads.get(s.vid) ?? null,
      }));
    await ways.updateRows(t, updated);
  }

  return {
    /** Writes the batch at once, in a savepoint of `t`; undefined (nothing written) when it must
     * go one item at a time instead. */
    async atOnce(t: Transaction, portalId: number, items: BatchItem[]): Promise<ChangedContact[] | undefined> {
      try {
        return await t.tx(async (s) => {
          const slots = await planAll(s, portalId, items);
          if (!slots) return undefined;
          await store(s, portalId, slots);
          return slots.map((slot) => ({
            vid: slot.vid,
            properties: slot.plans.at(-1)?.props ?? propertiesOf(slot.row!),
            isNew: !slot.row,
          }));
        });
      } catch (err) {
        if (err instanceof BatchEmailTaken) return undefined;
        throw err;
      }
    },
  };
}
