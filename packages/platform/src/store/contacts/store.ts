/** Contacts: properties (current values as JSON on the row, every write in contact_history) and
 * identities (email on the row, visitor tokens in utks). The statements are sql.ts's, the record
 * shapes record.ts's, a write is planned by plan.ts and a batch written by batch.ts. */
import { type Engine, isTransaction, type Queryable, readsAhead, type Transaction, within } from '../../db/engine';
import { pair, pick } from '../../db/statements';
import { timeOf } from '../../db/tx-clock';
import { badRequest, isTransient, notFound, PlatformError } from '../../domain/errors';
import { ANALYTICS } from '../default-properties';
import { isEmail, type PropertyStore } from '../properties';
import { METRICS, type RollupStore } from '../rollups';
import { type BatchItem, contactBatchWriter } from './batch';
import { type ChangedContact, checkWrites, type ContactRow, plan, propertiesOf, type Source, type Write } from './plan';
import { contactRecords } from './record';
import { contactSql, type RowUpdate } from './sql';

/** `onChange` hears every write, in its transaction `db`: dynamic lists re-check from it. */
export type ContactsChanged = (db: Transaction, portalId: number, changed: ChangedContact[]) => Promise<void> | void;

/** A new contact's insert found its email taken by a contact another transaction made meanwhile
 * (PostgreSQL: the two checks ran at once); the caller writes to that contact instead. */
class EmailTaken extends Error {
  constructor(readonly owner: ContactRow) {
    super('email taken');
  }
}

/** `rollups`: where the contacts made per source are counted (the dashboard), if anywhere. */
export function contactStore(
  engine: Engine,
  properties: PropertyStore,
  now: () => number,
  onChange: ContactsChanged,
  rollups?: RollupStore,
) {
  const statements = contactSql(engine);
  const { q, ways } = statements;
  const { record, records, existsError } = contactRecords(statements, properties);

  /** The contacts made per day and original source: a contact counts on the day it was made
   * under its original source, and moves when that is set later (its first visit, claimed). */
  const countMade = async (
    db: Queryable,
    portalId: number,
    props: Record<string, string>,
    createdAt: number,
    sign: 1 | -1 = 1,
  ) =>
    rollups?.add(
      db,
      portalId,
      METRICS.contacts,
      createdAt,
      props[ANALYTICS.source] ?? '',
      props[ANALYTICS.sourceData1] ?? '',
      sign,
    );
  const batchWriter = contactBatchWriter(statements, properties, now, countMade);

  /** Checks and plans the writes to `row` (or a new contact), then stores them; `system` writes
   * are the platform's own (they may set read-only properties). Returns the contact as written.
   * With `defer`, an update of the row's properties alone is handed to it, for the caller to store
   * with others. */
  async function write(
    db: Queryable,
    portalId: number,
    row: ContactRow | undefined,
    given: Write[],
    source: Source,
    system: Write[] = [],
    defer?: (update: RowUpdate) => void,
  ): Promise<ChangedContact & Required<Pick<ChangedContact, 'properties'>>> {
    await checkWrites(properties, db, portalId, given, system);
    const writes = system.length ? [...given, ...system] : given;
    const { props, email, changes, t, changed, names } = plan(row, writes, source, timeOf(db, now));
    if (!changed) return { vid: row!.vid, properties: props, names };
    // An email changed to another contact's: 409. A new contact's email taken since the caller
    // looked (another transaction) is found by its insert, which then writes nothing: EmailTaken.
    if (row && email && email != row.email) {
      const owner = await db.get(q.byEmail, portalId, email);
      if (owner && owner.vid != row.vid) throw await existsError(db, owner);
    }
    const text = JSON.stringify(props);
    if (!row) {
      const vid = await ways.insertContact(db, { portalId, email, properties: text, t, source, changes });
      if (vid === undefined) throw new EmailTaken((await db.get(q.byEmail, portalId, email!))!);
      await countMade(db, portalId, props, t);
      return { vid, properties: props, isNew: true };
    }
    // Its original source set or changed: it counts under the new one (read only when written).
    const movesSource = (w: Write) => w.property == ANALYTICS.source || w.property == ANALYTICS.sourceData1;
    if (rollups && (given.some(movesSource) || system.some(movesSource))) {
      const before = propertiesOf(row);
      const origin = (p: Record<string, string>) =>
        `${p[ANALYTICS.source] ?? ''}\u0000${p[ANALYTICS.sourceData1] ?? ''}`;
      if (origin(before) != origin(props)) {
        await countMade(db, portalId, before, row.created_at, -1);
        await countMade(db, portalId, props, row.created_at);
      }
    }
    const head = changes
      ? (await db.insert(q.history, row.vid, row.history_head, t, source.type, source.id ?? null, changes))!
      : row.history_head;
    if (email != row.email) await db.run(q.updateEmail, email, text, t, head, row.vid);
    else if (defer) defer({ vid: row.vid, properties: text, updated_at: t, history_head: head });
    else await db.run(q.update, text, t, head, row.vid);
    return { vid: row.vid, properties: props, names };
  }

  /** Writes by email: to its contact, or a new one (or, when another transaction made that one
   * meanwhile, to it: the failed insert wrote nothing). */
  async function writeByEmail(
    db: Queryable,
    portalId: number,
    email: string,
    writes: Write[],
    source: Source,
    system: Write[] = [],
    known?: ContactRow | null,
  ) {
    const row =
      known === undefined ? await db.get(q.byEmailToWrite, portalId, email.toLowerCase()) : (known ?? undefined);
    try {
      return { written: await write(db, portalId, row, writes, source, system), isNew: !row };
    } catch (err) {
      if (!(err instanceof EmailTaken)) throw err;
      return { written: await write(db, portalId, err.owner, writes, source, system), isNew: false };
    }
  }

  /** A batch one item at a time: the path for what the batch writer leaves (an error naming its
   * item, an email changed, a contact made meanwhile by another transaction). */
  async function oneByOne(t: Transaction, portalId: number, items: BatchItem[]) {
    const written: ChangedContact[] = [];
    for (const [index, item] of items.entries()) {
      try {
        if (item.vid) {
          const row = await getToWrite(t, portalId, item.vid);
          if (!row) throw notFound(`contact ${item.vid} does not exist`);
          written.push(await write(t, portalId, row, item.properties, { type: 'API' }));
        } else if (item.email) {
          if (!isEmail(item.email)) throw badRequest(`Email address ${item.email} is invalid`);
          const writes = item.properties.some((w) => w.property == 'email')
            ? item.properties
            : [{ property: 'email', value: item.email }, ...item.properties];
          written.push((await writeByEmail(t, portalId, item.email, writes, { type: 'API' })).written);
        } else throw badRequest('each item needs a vid or an email');
      } catch (err) {
        if (!(err instanceof PlatformError) || isTransient(err)) throw err;
        throw badRequest(`item ${index}: ${err.message}`, {
          failureMessages: [{ index, error: { status: 'error', message: err.message } }],
          ...(err.extra.validationResults ? { validationResults: err.extra.validationResults } : {}),
        });
      }
    }
    return written;
  }

  /** The ORDER BY of a search (sql.ts): `sort` must name one of the portal's properties (the 400
   * names it). Values are kept as text; those of number and date properties were checked to be
   * numbers when they were written, but a property's type can change since (the others sort as
   * none). */
  async function searchSort(db: Queryable, portalId: number, sort?: { property: string; order?: 'ASC' | 'DESC' }) {
    if (!sort) return undefined;
    const p = (await properties.definitions(db, portalId)).get(sort.property);
    if (!p || p.deleted) throw badRequest(`query.sort: '${sort.property}' is not a contact property`);
    return { name: sort.property, numeric: ['number', 'datetime', 'date'].includes(p.type), dir: sort.order ?? 'DESC' };
  }

  const get = (db: Queryable, portalId: number, vid: number) => db.get(q.byVid, portalId, vid);
  const getToWrite = (db: Queryable, portalId: number, vid: number) => db.get(q.byVidToWrite, portalId, vid);
  /** Told when a write has sent the reads that lock the last contacts it changes (nothing locks
   * another contact after them), before it writes anything else: the lists take their lock and
   * read what the re-check at the write's end needs ahead (lists.ts readAhead). */
  const aboutToChangeListeners: ((db: Queryable, portalId: number) => void)[] = [];
  const aboutToChange = (db: Queryable, portalId: number) => aboutToChangeListeners.forEach((fn) => fn(db, portalId));
  /** Rows about to be written, each by the primary key, in vid order so that two writers lock
   * them in one order (sql.ts rowsToWrite). */
  const getToWriteAll = (db: Queryable, portalId: number, vids: number[]) =>
    ways.rowsToWrite(
      db,
      [...new Set(vids)].sort((a, b) => a - b),
      portalId,
    );

  /** Rows read ahead to be written (readToWriteAhead), by transaction and portal. */
  const rowsAhead = readsAhead<{ vids: Set<number>; rows: Promise<ContactRow[]> }>();

  /** The rows of `vids` about to be written: as read ahead in this transaction if all of them were
   * (once), or now. */
  function rowsToWrite(t: Transaction, portalId: number, vids: number[]) {
    const read = rowsAhead.get(t.txKey, portalId);
    rowsAhead.drop(t.txKey, portalId);
    if (read && vids.every((vid) => read.vids.has(vid))) return read.rows;
    return getToWriteAll(t, portalId, vids);
  }

  /** Reads sent ahead of the write that needs them, in the statements being sent: on PostgreSQL,
   * where a read waited for is a round trip; SQLite's reads are function calls, with nothing to
   * send them with. */
  const ahead = pick(engine, {
    readToWriteAhead: pair<(db: Queryable, portalId: number, vids: number[]) => void>({
      sqlite: () => {},
      postgres(db, portalId, vids) {
        const tx = db.txKey;
        if (!tx || !isTransaction(db) || !vids.length) return;
        const rows = getToWriteAll(db, portalId, vids);
        rows.catch(() => {}); // the transaction's next statement fails with it
        aboutToChange(db, portalId);
        rowsAhead.set(tx, portalId, { vids: new Set(vids), rows });
      },
    }),
  });

  /** A page of rows plus one more, which tells `has-more`. */
  const paged = (rows: ContactRow[], count: number) => ({ rows: rows.slice(0, count), hasMore: rows.length > count });

  return {
    record,
    /** Records of a page of rows; `addedAt` gives each its sort timestamp. */
    records,
    get,
    /** The row, locked on PostgreSQL until the transaction `db` ends: for a write computed from it
     * (analytics counters), which another writer must not overwrite meanwhile. */
    getToWrite,
    getByEmail: (db: Queryable, portalId: number, email: string) => db.get(q.byEmail, portalId, email.toLowerCase()),
    /** The contact of `email`, read to be written in this transaction (another writer of it waits
     * on PostgreSQL). */
    getByEmailToWrite(db: Queryable, portalId: number, email: string) {
      const row = db.get(q.byEmailToWrite, portalId, email.toLowerCase());
      // Its callers (a form submission) write this contact and lock no other.
      aboutToChange(db, portalId);
      return row;
    },
    /** `fn` hears when a write has sent the reads that lock the last contacts it will change. */
    aboutToChange: (fn: (db: Queryable, portalId: number) => void) => void aboutToChangeListeners.push(fn),
    getByUtk: (db: Queryable, portalId: number, utk: string) => db.get(q.byUtk, portalId, utk),
    async require(db: Queryable, portalId: number, vid: number) {
      const row = await get(db, portalId, vid);
      if (!row) throw notFound('contact does not exist');
      return row;
    },

    create: (db: Queryable, portalId: number, writes: Write[], source: Source = { type: 'API' }) =>
      db.tx(async (t) => {
        const email = writes.find((w) => w.property == 'email')?.value;
        if (email && isEmail(email)) {
          const owner = await t.get(q.byEmail, portalId, email.toLowerCase());
          if (owner) throw await existsError(t, owner);
        }
        try {
          const written = await write(t, portalId, undefined, writes, source);
          await onChange(t, portalId, [written]);
          return written.vid;
        } catch (err) {
          throw err instanceof EmailTaken ? await existsError(t, err.owner) : err;
        }
      }),

    /** `allowReadOnly` makes every write a system one; `system` adds system writes to checked ones. */
    update: (
      db: Queryable,
      portalId: number,
      vid: number,
      writes: Write[],
      source?: Source,
      allowReadOnly?: boolean,
      system: Write[] = [],
    ) =>
      db.tx(async (t) => {
        const row = await getToWrite(t, portalId, vid);
        if (!row) throw notFound('resource not found');
        const src = source ?? { type: 'API' };
        const written = allowReadOnly
          ? await write(t, portalId, row, [], src, [...writes, ...system])
          : await write(t, portalId, row, writes, src, system);
        await onChange(t, portalId, [written]);
      }),

    /** Reads and locks the rows of `vids` for updateFromAll later in the transaction `db`, and the
     * dynamic lists after them (aboutToChange), now and without waiting: on PostgreSQL they go in
     * the write being sent (a collector bulk's, with its events), not in a round trip of their
     * own; nothing on SQLite. Only for a write that changes nothing else of these contacts before
     * then. */
    readToWriteAhead: ahead.readToWriteAhead,

    /** The platform's own writes (counters: every write is a system one) computed by each item's
     * `compute` from its contact's values as they are in this transaction: each read once,
     * written once, several contacts of the portal in one write (a collector bulk's) without a
     * round trip each on PostgreSQL. Nothing for a contact that is gone or that `compute` writes
     * nothing for. In the caller's transaction without a savepoint (`within`). */
    updateFromAll: (
      db: Queryable,
      portalId: number,
      items: { vid: number; compute: (properties: Record<string, string>) => Write[]; source: Source }[],
    ) =>
      within(db, async (t) => {
        const read = rowsToWrite(
          t,
          portalId,
          items.map((i) => i.vid),
        );
        // Its callers (the end of a collector bulk, a visitor's link) lock no other contact after it.
        aboutToChange(t, portalId);
        const rows = new Map((await read).map((r) => [r.vid, r]));
        const written = [];
        // The rows' updates sent at the end without waiting for them (pipelined on PostgreSQL).
        const updates: RowUpdate[] = [];
        const defer = (u: RowUpdate) => void updates.push(u);
        for (const { vid, compute, source } of items) {
          const row = rows.get(vid);
          const writes = row ? compute(propertiesOf(row)) : [];
          if (writes.length) written.push(await write(t, portalId, row, [], source, writes, defer));
        }
        await ways.updateRows(t, updates);
        if (written.length) await onChange(t, portalId, written);
      }),

    /** By email: the email in the path wins unless the body changes it. `known`: the contact of
     * `email` as the caller read it for writing in this transaction (getByEmailToWrite; null:
     * none), not read again; `submitted`: every form that contact has submitted, with this
     * transaction's (the change announced carries them unless another transaction made the
     * contact meanwhile). In the caller's transaction without a savepoint (`within`): its
     * callers (a request, a form submission, a collector bulk) fail as a whole when it fails. */
    upsertByEmail: (
      db: Queryable,
      portalId: number,
      email: string,
      writes: Write[],
      source: Source = { type: 'API' },
      system: Write[] = [],
      { known, submitted }: { known?: ContactRow | null; submitted?: string[] } = {},
    ) =>
      within(db, async (t) => {
        if (!isEmail(email))
          throw badRequest('Property values were not valid', {
            validationResults: [
              { isValid: false, message: `Email address ${email} is invalid`, error: 'INVALID_EMAIL', name: 'email' },
            ],
          });
        const all = writes.some((w) => w.property == 'email')
          ? writes
          : [{ property: 'email', value: email }, ...writes];
        const { written, isNew } = await writeByEmail(t, portalId, email, all, source, system, known);
        await onChange(t, portalId, [submitted && (isNew || known) ? { ...written, submitted } : written]);
        return { vid: written.vid, isNew };
      }),

    /** All or nothing: any invalid item rejects the batch, naming it by index. At once when it
     * can (batch.ts), else one item at a time. */
    batch: (db: Queryable, portalId: number, items: BatchItem[]) =>
      db.tx(async (t) => {
        const written = (await batchWriter.atOnce(t, portalId, items)) ?? (await oneByOne(t, portalId, items));
        await onChange(t, portalId, written);
      }),

    remove: (db: Queryable, portalId: number, vid: number) =>
      db.tx(async (t) => {
        if (!(await getToWrite(t, portalId, vid))) throw notFound('contact does not exist');
        // The lists' lock (shared) before the lists' rows below, as every writer of those rows takes
        // it: a list being changed meanwhile holds it alone and then writes its row (PostgreSQL;
        // the other way round each would wait for the other).
        aboutToChange(t, portalId);
        await t.run(q.remove, now(), portalId, vid);
        await t.run(q.removeUtks, vid);
        await t.run(q.listsLeft, now(), vid);
        await t.run(q.removeMemberships, vid);
        await onChange(t, portalId, [{ vid }]);
      }),

    /** Stores the link only: services/visitor-links.ts also counts the visitor's earlier events. */
    async linkUtk(db: Queryable, portalId: number, utk: string, vid: number) {
      // An upsert: nothing for it to fail on, so sent without waiting.
      await db.send(q.linkUtk, portalId, utk, vid, now());
    },

    /** Contacts by vid ascending after `vidOffset`. */
    page: async (db: Queryable, portalId: number, count: number, vidOffset = 0) =>
      paged(await db.all(q.page, portalId, vidOffset, count + 1), count),

    /** Newest update first, before (timeOffset, vidOffset). */
    recent: async (
      db: Queryable,
      portalId: number,
      count: number,
      timeOffset = Number.MAX_SAFE_INTEGER,
      vidOffset = Number.MAX_SAFE_INTEGER,
    ) => paged(await db.all(q.recent, portalId, timeOffset, timeOffset, vidOffset, count + 1), count),

    /** Newest creation first, before `vidOffset` (or created at `timeOffset` or earlier when only it is given). */
    async created(db: Queryable, portalId: number, count: number, timeOffset?: number, vidOffset?: number) {
      const time = vidOffset === undefined ? (timeOffset ?? Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
      return paged(await db.all(q.created, portalId, vidOffset ?? Number.MAX_SAFE_INTEGER, time, count + 1), count);
    },

    /** Removes a (deleted) property's values from every contact of the portal. */
    forgetProperty: (db: Queryable, portalId: number, name: string) => db.run(q.forget, name, portalId, name),

    /** Substring matches; by vid unless `sort` names a property (`order` DESC by default, as the
     * legacy API; numbers and dates compare as numbers; contacts without a value come last). */
    async search(
      db: Queryable,
      portalId: number,
      text: string,
      count: number,
      offset: number,
      sort?: { property: string; order?: 'ASC' | 'DESC' },
    ) {
      const like = `%${text.toLowerCase().replace(/[%_\\]/g, '\\$&')}%`;
      const s = q.search(await searchSort(db, portalId, sort));
      const params = [portalId, ...Array.from({ length: s.fields }, () => like)];
      const [total, rows] = await Promise.all([db.value(s.count, ...params), db.all(s.rows, ...params, count, offset)]);
      return { rows, total: Number(total) };
    },

    async statistics(db: Queryable, portalId: number) {
      const s = (await db.get(q.stats, portalId))!;
      return { contacts: s.n, lastNewContactAt: s.last };
    },
  };
}

export type ContactStore = ReturnType<typeof contactStore>;
