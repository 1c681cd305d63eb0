/** Contact lists. Static lists hold the contacts added to them; dynamic lists hold the portal's
 * contacts matching their filters, re-evaluated when the list changes, on refresh, and for the
 * changed contacts on every contact write. A membership row keeps the time the contact joined
 * (`addedAt`) for as long as the contact stays.
 *
 * Several processes may write at once (PostgreSQL). What keeps memberships right is one lock per
 * portal's lists (`Transaction.lock`), taken before anything is read: a transaction that changes
 * memberships by the lists as they are (a contact write's re-check, a static list's add or
 * remove) holds it shared; one that changes a list or evaluates it in full (create, update,
 * remove, refresh, a deleted property) holds it alone. So a refresh never decides from contacts
 * that a re-check is deciding about meanwhile (it would put back a contact that just left), a new
 * list sees the contacts being written as it is made, two refreshes of one list run one after the
 * other, and no member is added to a list being deleted. Evaluation is in memory (the rules are
 * list-filters.ts, the same on both engines); only the membership changes go back. */
import { type Engine, isTransaction, type Queryable, readsAhead, type Transaction } from '../../db/engine';
import { pair, pick } from '../../db/statements';
import { badRequest, notFound } from '../../domain/errors';
import type { ChangedContact, ContactsChanged, ContactStore } from '../contacts';
import { formsNamed, matches, normaliseFilters, propertiesRead, type ListFilters } from '../list-filters';
import { membership } from './membership';
import { type ListWrite, type MembershipChange, record } from './record';
import { listSql, type ListRow } from './sql';

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function listStore(
  engine: Engine,
  contacts: ContactStore,
  now: () => number,
  onContactsChanged: (fn: ContactsChanged) => void,
) {
  const q = listSql(engine.dialect);
  const { submitted, subjects, setMembers, evaluate } = membership(q, now);

  /** Dynamic lists' filters by their text, parsed once rather than on every contact write (a form
   * submission's re-check felt it); dropped whole when it grows past what lists there are. */
  const parsed = new Map<string, { filters: ListFilters; forms: string[]; properties: Set<string> }>();
  function filtersOf(text: string) {
    let found = parsed.get(text);
    if (!found) {
      if (parsed.size >= 1000) parsed.clear();
      const filters = JSON.parse(text) as ListFilters;
      parsed.set(text, (found = { filters, forms: formsNamed(filters), properties: propertiesRead(filters) }));
    }
    return found;
  }

  /** Dynamic lists read ahead (readAhead), by transaction and portal. */
  const ahead = readsAhead<Promise<DynamicRow[]>>();
  type DynamicRow = Pick<ListRow, 'list_id' | 'name' | 'filters'>;

  /** Takes the portal's list lock (see the top of this file) in the transaction `t`. Taken alone,
   * the lists may change in this transaction: what was read ahead of it is dropped. */
  const lock = (t: Transaction, portalId: number, mode: 'shared' | 'exclusive') => {
    if (mode == 'exclusive') ahead.drop(t.txKey, portalId);
    return t.lock(`lists:${portalId}`, mode);
  };

  /** Takes the portal's list lock (shared) and reads its dynamic lists in the transaction `db`
   * now, without waiting, for the re-check its contact write will end with (recheck): on
   * PostgreSQL they go in the write being sent, and the re-check waits for no round trip of its
   * own; SQLite's reads are function calls, with nothing to send them with. Called right after the
   * reads that lock the contacts to write, so that the list lock comes after theirs, as the
   * re-check takes it. */
  const { readAhead } = pick(engine, {
    readAhead: pair<(db: Queryable, portalId: number) => void>({
      sqlite: () => {},
      postgres(db, portalId) {
        const tx = db.txKey;
        if (!tx || !isTransaction(db) || ahead.get(tx, portalId)) return;
        void lock(db, portalId, 'shared');
        const rows = db.all(q.dynamicOf, portalId);
        rows.catch(() => {}); // the transaction's next statement fails with it
        ahead.set(tx, portalId, rows);
      },
    }),
  });

  /** The portal's dynamic lists, under its list lock (shared): as read ahead, or now. */
  async function dynamicLists(db: Transaction, portalId: number) {
    const read = ahead.get(db.txKey, portalId);
    if (read) return read;
    await lock(db, portalId, 'shared');
    return db.all(q.dynamicOf, portalId);
  }

  async function require(db: Queryable, portalId: number, listId: number) {
    const row = await db.get(q.byId, portalId, listId);
    if (!row) throw notFound(`Couldn't find a List with the given id '${listId}'.`);
    return row;
  }

  /** Re-checks only the changed contacts against the portal's dynamic lists, with the properties
   * they were written with (a contact without them was deleted: it leaves). A list that reads
   * none of the properties a write changed (propertiesRead: a form filter reads what a form
   * submission changes) keeps the contact where it was (an analytics counter's update moves it
   * nowhere). Runs in the writing transaction `db`. */
  async function recheck(db: Transaction, portalId: number, changed: ChangedContact[]) {
    const all = (await dynamicLists(db, portalId)).map((l) => ({ id: l.list_id, ...filtersOf(l.filters) }));
    // A contact written twice counts with its last write (as gathered: what either changed).
    const last = new Map(changed.map((c) => [c.vid, c]));
    // A new contact may match by what it lacks (NOT_HAS_PROPERTY): every list checks it.
    const moves = (list: (typeof all)[number], c: ChangedContact) =>
      !c.properties || !c.names || c.isNew || c.names.some((n) => list.properties.has(n));
    const lists = all.filter((list) => [...last.values()].some((c) => moves(list, c)));
    if (!lists.length) return;
    // What the writes know of their contacts' submissions is not read again.
    const known = [...last.values()].every((c) => c.submitted);
    const subject = subjects(
      known
        ? [...last.values()].flatMap((c) => c.submitted!.map((form_guid) => ({ vid: c.vid, form_guid })))
        : await submitted(
            db,
            portalId,
            [...last.keys()],
            lists.flatMap((l) => l.forms),
          ),
    );
    const at = now();
    for (const list of lists) {
      const [inside, outside]: number[][] = [[], []];
      for (const [vid, c] of last) {
        if (!moves(list, c)) continue;
        if (c.properties && matches(list.filters, subject(vid, c.properties))) inside.push(vid);
        // One made by the write is in no list yet.
        else if (!c.isNew) outside.push(vid);
      }
      // Who joined is not needed here: one contact's row is sent without waiting (pipelined on
      // PostgreSQL; it cannot fail: the list is held by the lock, the contact is being written).
      if (inside.length == 1) await db.send(q.addMember, list.id, inside[0], at);
      else if (inside.length) await setMembers(db, list.id, inside, true, at);
      if (outside.length && (await setMembers(db, list.id, outside, false, at)).length)
        await db.run(q.sizeChanged, at, list.id);
    }
  }
  onContactsChanged(recheck);
  contacts.aboutToChange(readAhead);

  /** Adds or removes contacts of a static list, by vid or email. */
  function change(db: Queryable, portalId: number, listId: number, vids: number[], emails: string[], add: boolean) {
    return db.tx(async (t): Promise<MembershipChange> => {
      await lock(t, portalId, 'shared');
      if ((await require(t, portalId, listId)).dynamic) throw badRequest('Can not operate manually on a dynamic list');
      const out: MembershipChange = { updated: [], discarded: [], invalidVids: [], invalidEmails: [] };
      // A contact named twice (or by vid and by email) counts once.
      const found = new Set<number>();
      for (const vid of vids) {
        if (await contacts.get(t, portalId, vid)) found.add(vid);
        else out.invalidVids.push(vid);
      }
      for (const email of emails) {
        const row = await contacts.getByEmail(t, portalId, email);
        if (row) found.add(row.vid);
        else out.invalidEmails.push(email);
      }
      const at = now();
      const changed = new Set(await setMembers(t, listId, [...found], add, at));
      for (const vid of found) (changed.has(vid) ? out.updated : out.discarded).push(vid);
      if (out.updated.length && !add) await t.run(q.sizeChanged, at, listId);
      return out;
    });
  }

  /** Filters are only kept (normalised) on dynamic lists; static lists answer `[]`. Normalising is
   * idempotent, so unchanged filters serialise the same. */
  async function filtersFor(db: Queryable, portalId: number, dynamic: boolean, filters: ListFilters | undefined) {
    if (!dynamic || !filters) return '[]';
    const normalised = normaliseFilters(filters);
    // A filter names one of the portal's own forms: another portal's is not there to see.
    for (const [g, group] of normalised.entries())
      for (const [i, f] of group.entries())
        if (f.form !== undefined && !(await db.get(q.formOfPortal, portalId, f.form)))
          throw notFound(`body.filters.${g}.${i}.form: no form ${f.form} in this portal`);
    return JSON.stringify(normalised);
  }

  /** Gives the list a new internalListId, the largest plus one: chosen last in the transaction,
   * under a lock, so that two processes choosing at once (neither would see the other's
   * uncommitted row) choose one after the other, and the lock is held only until the commit. */
  async function renumber(t: Transaction, listId: number) {
    await t.lock('list ids');
    await t.run(q.renumber, listId);
  }
  const get = async (db: Queryable, portalId: number, listId: number) => record(await require(db, portalId, listId));

  return {
    get,
    async kindOf(db: Queryable, portalId: number, listId: number) {
      const row = await db.get(q.byId, portalId, listId);
      return row && (row.dynamic ? ('DYNAMIC' as const) : ('STATIC' as const));
    },

    /** The lists that exist, in the order asked. */
    async getMany(db: Queryable, portalId: number, listIds: number[]) {
      const found = new Map(
        (await db.all(q.byIds, portalId, JSON.stringify(listIds))).map((row) => [row.list_id, row]),
      );
      return listIds.flatMap((id) => (found.has(id) ? [record(found.get(id)!)] : []));
    },

    /** By list id, `offset` lists in; one more than asked tells `hasMore`. */
    async page(db: Queryable, portalId: number, count: number, offset = 0, type?: 'STATIC' | 'DYNAMIC') {
      const [lo, hi] = type == 'STATIC' ? [0, 0] : type == 'DYNAMIC' ? [1, 1] : [0, 1];
      const rows = await db.all(q.page, portalId, lo, hi, count + 1, offset);
      return { lists: rows.slice(0, count).map(record), hasMore: rows.length > count };
    },

    create(db: Queryable, portalId: number, body: ListWrite & { name: string }) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        const dynamic = !!body.dynamic;
        const filters = await filtersFor(t, portalId, dynamic, body.filters);
        const at = now();
        const list_id = (await t.insert(q.insert, portalId, body.name, dynamic ? 1 : 0, filters, at, at, at))!;
        if (dynamic) await evaluate(t, { list_id, portal_id: portalId, filters });
        await renumber(t, list_id);
        return get(t, portalId, list_id);
      });
    },

    /** Changing the filters (or the type) gives the list a new internalListId, as the legacy API does. */
    update(db: Queryable, portalId: number, listId: number, body: ListWrite) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        const row = await require(t, portalId, listId);
        const dynamic = body.dynamic ?? !!row.dynamic;
        const filters = await filtersFor(
          t,
          portalId,
          dynamic,
          body.filters ?? (JSON.parse(row.filters) as ListFilters),
        );
        await t.run(q.update, body.name ?? row.name, dynamic ? 1 : 0, filters, now(), listId);
        if (dynamic) await evaluate(t, { list_id: listId, portal_id: portalId, filters });
        if (filters != row.filters || dynamic != !!row.dynamic) await renumber(t, listId);
        return get(t, portalId, listId);
      });
    },

    remove(db: Queryable, portalId: number, listId: number) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        await require(t, portalId, listId);
        await t.run(q.removeAll, listId);
        await t.run(q.remove, listId);
      });
    },

    /** Full re-evaluation of a dynamic list; nothing to do for a static one. */
    refresh(db: Queryable, portalId: number, listId: number) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        const row = await require(t, portalId, listId);
        if (row.dynamic) await evaluate(t, row);
      });
    },

    /** A deleted property leaves the filters: its conditions go from each AND group (a group left
     * empty goes too, and a list left with no group matches no one), and the lists it was in are
     * re-evaluated. */
    forgetProperty(db: Queryable, portalId: number, name: string) {
      return db.tx(async (t) => {
        await lock(t, portalId, 'exclusive');
        const changed: number[] = [];
        for (const list of await t.all(q.dynamicOf, portalId)) {
          const filters = JSON.parse(list.filters) as ListFilters;
          if (!filters.some((group) => group.some((f) => f.property == name))) continue;
          const kept = JSON.stringify(
            filters.map((group) => group.filter((f) => f.property != name)).filter((group) => group.length),
          );
          await t.run(q.update, list.name, 1, kept, now(), list.list_id);
          await evaluate(t, { list_id: list.list_id, portal_id: portalId, filters: kept });
          changed.push(list.list_id);
        }
        for (const listId of changed) await renumber(t, listId);
      });
    },

    /** Static lists only (also used by workflow actions). */
    addMembers: (db: Queryable, portalId: number, listId: number, vids: number[], emails: string[] = []) =>
      change(db, portalId, listId, vids, emails, true),
    removeMembers: (db: Queryable, portalId: number, listId: number, vids: number[], emails: string[] = []) =>
      change(db, portalId, listId, vids, emails, false),

    /** Members by vid ascending after `vidOffset`. */
    async members(db: Queryable, portalId: number, listId: number, count: number, vidOffset = 0) {
      await require(db, portalId, listId);
      const rows = await db.all(q.members, listId, vidOffset, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },

    /** Members newest first, before (timeOffset, vidOffset). */
    async recentMembers(
      db: Queryable,
      portalId: number,
      listId: number,
      count: number,
      timeOffset = Number.MAX_SAFE_INTEGER,
      vidOffset = Number.MAX_SAFE_INTEGER,
    ) {
      await require(db, portalId, listId);
      const rows = await db.all(q.recentMembers, listId, timeOffset, timeOffset, vidOffset, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },
  };
}

export type ListStore = ReturnType<typeof listStore>;
