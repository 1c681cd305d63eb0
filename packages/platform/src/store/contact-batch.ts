/** contacts.batch in a handful of statements whatever its size, rather than four or five per
 * contact: on PostgreSQL each statement is a round trip to the server, and a batch of 1,000
 * contacts took 4,000 of them (1,400 contacts/s). The rows are read in one query, worked out in
 * memory by the same plan() as a single write, and stored by statements that each take every
 * row as one JSON parameter (Dialect.jsonRows). SQLite, where a statement is a function call,
 * reads and writes a statement a contact instead (oneStatementFor), which costs it less. */
import { type Engine, oneStatementFor, type Queryable, sql, type Transaction } from '../db/engine';
import { isTransient, PlatformError } from '../domain/errors';
import type { ChangedContact, ContactRow, Plan, Source, Write } from './contacts';
import { isEmail } from './properties';

export interface BatchItem {
  vid?: number;
  email?: string;
  properties: Write[];
}

type PlanFn = (db: Queryable, portalId: number, row: ContactRow | undefined, given: Write[], source: Source) => Promise<Plan>;

/** A contact the batch touches: its row (none for a new one) and, in item order, the plans of the
 * items that change it. */
interface Slot {
  row?: ContactRow;
  email: string | null;
  plans: Plan[];
  vid: number;
}

/** A new contact's email was taken by another transaction since the batch looked (PostgreSQL). */
export class BatchEmailTaken extends Error {
  constructor() {
    super('a new contact of the batch was made meanwhile');
  }
}

const SOURCE: Source = { type: 'API' };

/** Told of each contact a batch made, with its properties and when it was made. */
export type ContactMade = (t: Transaction, portalId: number, props: Record<string, string>, createdAt: number) => Promise<unknown>;

export function contactBatchWriter(engine: Engine, columns: string, plan: PlanFn, onMade: ContactMade = async () => {}) {
  const { inJsonArray, jsonRows, forUpdate } = engine.dialect;
  // Rows locked in vid order, so that two batches touching the same contacts wait for each other
  // instead of deadlocking.
  const q = {
    byVids: sql<[number, string], ContactRow>(
      `SELECT ${columns} FROM contacts WHERE portal_id = ? AND deleted = 0 AND ${inJsonArray('vid', '?', 'integer')} ORDER BY vid${forUpdate}`,
    ),
    // Each email looked up on its own through the email index: SQLite would rather scan the
    // portal's contacts for `email IN (…)` (its partial index is not used for a list).
    byEmails: sql<[number, string], ContactRow>(
      `SELECT ${columns} FROM contacts WHERE vid IN (
         SELECT (SELECT c.vid FROM contacts c WHERE c.portal_id = ? AND c.email = j.email AND c.deleted = 0)
         FROM (${jsonRows('?', { email: 'text' })}) AS j
       ) ORDER BY vid${forUpdate}`,
    ),
    vids: sql<[number], { id: number }>(engine.dialect.nextIds('contacts', 'vid', '?')),
    // New contacts with their vids taken beforehand (their history written first, so that each
    // is written once with its head, not inserted and then updated), in email order: two batches
    // making some of the same contacts at once wait for each other on the first email they share
    // instead of each holding one the other needs (a deadlock). A row missing from the answer is
    // an email another transaction took meanwhile.
    insert: sql<[number, string], { vid: number }>(
      `INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at, history_head)
       SELECT vid, ?, email, properties, created_at, updated_at, head
       FROM (${jsonRows('?', { vid: 'integer', email: 'text', properties: 'text', created_at: 'integer', updated_at: 'integer', head: 'integer' })}) AS x
       WHERE true ORDER BY email
       ON CONFLICT (portal_id, email) WHERE deleted = 0 AND email IS NOT NULL DO NOTHING RETURNING vid`,
    ),
    history: sql<[string, string], { seq: number; vid: number }>(
      `INSERT INTO contact_history (vid, prev, timestamp, source_type, source_id, changes)
       SELECT vid, prev, t, ?, NULL, changes FROM (${jsonRows('?', { vid: 'integer', prev: 'integer', t: 'integer', changes: 'text' })}) AS x
       WHERE true ORDER BY vid RETURNING seq, vid`,
    ),
    update: sql<[string]>(
      `UPDATE contacts SET properties = x.properties, updated_at = x.t, history_head = x.head
       FROM (${jsonRows('?', { vid: 'integer', properties: 'text', t: 'integer', head: 'integer' })}) AS x WHERE contacts.vid = x.vid`,
    ),
    // SQLite: a statement a contact (oneStatementFor), which costs it less than one over the
    // JSON array, whose every field json_extract reads again (an UPDATE … FROM also joins through
    // a temporary table: 14 µs a contact at a million, 11 this way).
    byEmail: sql<[number, string], ContactRow>(`SELECT ${columns} FROM contacts WHERE portal_id = ? AND email = ? AND deleted = 0`),
    insertOne: sql<[number, number, string, string, number, number, number | null]>(
      `INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at, history_head) VALUES (?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (portal_id, email) WHERE deleted = 0 AND email IS NOT NULL DO NOTHING`,
    ),
    historyOne: sql<[number, number | null, number, string, string]>(
      `INSERT INTO contact_history (vid, prev, timestamp, source_type, source_id, changes) VALUES (?, ?, ?, ?, NULL, ?)${engine.dialect.returningKey('seq')}`,
    ),
    updateOne: sql<[string, number, number | null, number]>('UPDATE contacts SET properties = ?, updated_at = ?, history_head = ? WHERE vid = ?'),
  };

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
    const vids = [...vidSet];
    const emails = [...emailSet];
    const byVid = new Map((vids.length ? await t.all(q.byVids, portalId, JSON.stringify(vids)) : []).map((r) => [r.vid, r]));
    const byEmail = new Map((await readByEmails(t, portalId, emails)).map((r) => [r.email, r]));
    const slots = new Map<number | string, Slot>();
    for (const item of items) {
      const email = item.vid ? undefined : item.email!.toLowerCase();
      const row = item.vid ? byVid.get(item.vid) : byEmail.get(email!);
      if (!row && item.vid) return undefined;
      const key = row ? row.vid : email!;
      let slot = slots.get(key);
      if (!slot) slots.set(key, (slot = { row, email: row ? row.email : email!, plans: [], vid: row?.vid ?? 0 }));
      const writes = item.vid || item.properties.some((w) => w.property == 'email') ? item.properties : [{ property: 'email', value: email! }, ...item.properties];
      // A contact's later items apply to what its earlier ones made of it.
      const last = slot.plans.at(-1);
      const current: ContactRow | undefined = last
        ? { vid: slot.vid, portal_id: portalId, email: last.email, properties: JSON.stringify(last.props), created_at: slot.plans[0].t, updated_at: last.t, history_head: null }
        : row;
      let p: Plan;
      try {
        p = await plan(t, portalId, current, writes, SOURCE);
      } catch (err) {
        if (err instanceof PlatformError && !isTransient(err)) return undefined;
        throw err;
      }
      if (p.email != slot.email) return undefined;
      if (p.changed) slot.plans.push(p);
    }
    return [...slots.values()];
  }

  /** The contacts of `emails` that exist (in vid order on PostgreSQL, where they are locked). */
  async function readByEmails(t: Transaction, portalId: number, emails: string[]) {
    if (oneStatementFor(engine, emails.length)) return t.all(q.byEmails, portalId, JSON.stringify(emails.map((email) => ({ email }))));
    const rows = await Promise.all(emails.map((email) => t.get(q.byEmail, portalId, email)));
    return rows.filter((r) => r !== undefined);
  }

  /** Stores the planned slots: vids for the new contacts, each contact's history entries (a
   * contact written by several items gets one per item, chained, in rounds), then the rows. */
  async function store(t: Transaction, portalId: number, slots: Slot[]) {
    const fresh = slots.filter((s) => !s.row);
    if (fresh.length) (await t.all(q.vids, fresh.length)).forEach(({ id }, i) => (fresh[i].vid = id));
    const heads = new Map(slots.map((s) => [s.vid, s.row?.history_head ?? null]));
    const entries = slots.map((s) => ({ vid: s.vid, plans: s.plans.filter((p) => p.changes) }));
    for (let round = 0; ; round++) {
      const rows = entries.flatMap(({ vid, plans }) => (round < plans.length ? [{ vid, prev: heads.get(vid), t: plans[round].t, changes: plans[round].changes }] : []));
      if (!rows.length) break;
      if (oneStatementFor(engine, rows.length)) for (const r of await t.all(q.history, SOURCE.type, JSON.stringify(rows))) heads.set(r.vid, r.seq);
      else for (const r of rows) heads.set(r.vid, (await t.insert(q.historyOne, r.vid, r.prev ?? null, r.t, SOURCE.type, r.changes!))!);
    }
    if (fresh.length) {
      const rows = fresh.map((s) => ({
        vid: s.vid, email: s.email, properties: JSON.stringify(s.plans.at(-1)!.props), created_at: s.plans[0].t, updated_at: s.plans.at(-1)!.t, head: heads.get(s.vid),
      }));
      let made = 0;
      if (oneStatementFor(engine, rows.length)) made = (await t.all(q.insert, portalId, JSON.stringify(rows))).length;
      else for (const r of rows) made += await t.run(q.insertOne, r.vid, portalId, r.email!, r.properties, r.created_at, r.updated_at, r.head ?? null);
      if (made < fresh.length) throw new BatchEmailTaken();
      for (const s of fresh) await onMade(t, portalId, s.plans.at(-1)!.props, s.plans[0].t);
    }
    const updated = slots.filter((s) => s.row && s.plans.length).map((s) => ({ vid: s.vid, properties: JSON.stringify(s.plans.at(-1)!.props), t: s.plans.at(-1)!.t, head: heads.get(s.vid) ?? null }));
    if (oneStatementFor(engine, updated.length)) await t.run(q.update, JSON.stringify(updated));
    else for (const u of updated) await t.run(q.updateOne, u.properties, u.t, u.head, u.vid);
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
          return slots.map((slot) => ({ vid: slot.vid, properties: slot.plans.at(-1)?.props ?? JSON.parse(slot.row!.properties), isNew: !slot.row }));
        });
      } catch (err) {
        if (err instanceof BatchEmailTaken) return undefined;
        throw err;
      }
    },
  };
}
