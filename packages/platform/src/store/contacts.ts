/** Contacts: properties (current values as JSON on the row, every write in contact_history),
 * identities (email on the row, visitor tokens in utks), and the v1 record shapes. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import type { Statement } from 'better-sqlite3';
import { type Db, transaction } from '../db/open';
import { PlatformError, badRequest, conflict, notFound } from '../domain/errors';
import { isEmail, type PropertyStore } from './properties';

export interface ContactRow {
  vid: number;
  portal_id: number;
  email: string | null;
  properties: string;
  created_at: number;
  updated_at: number;
  history_head: number | null;
}

export interface Write {
  property: string;
  value: string;
}

/** A contact a write touched, with its properties after the write; without them it was deleted
 * (dynamic lists re-check it from these, without reading it again). */
export interface ChangedContact {
  vid: number;
  properties?: Record<string, string>;
}

/** Where a value came from (`source-type` of a property version). */
export interface Source {
  type: 'API' | 'FORM' | 'ANALYTICS' | 'WORKFLOW' | 'CALCULATED';
  id?: string | null;
}

export interface ReadOptions {
  /** Only these properties (list-style reads default to a small standard set). */
  property?: string[];
  propertyMode?: 'value_only' | 'value_and_history';
  formSubmissionMode?: 'all' | 'none' | 'newest' | 'oldest';
  showListMemberships?: boolean;
}

export type ContactRecord = z.input<typeof schemas.contact>;

/** Properties whose history is not kept (see write()). */
const CALCULATED = new Set(['createdate', 'lastmodifieddate']);

/** The properties list-style reads return when `property` is not given. */
const LIST_PROPERTIES = ['firstname', 'lastname', 'company', 'lastmodifieddate'];

/** A ContactRow's columns for a SELECT, each prefixed with `alias.` when the query joins. */
export const contactColumns = (alias?: string) =>
  ['vid', 'portal_id', 'email', 'properties', 'created_at', 'updated_at', 'history_head'].map((c) => (alias ? `${alias}.${c}` : c)).join(', ');
const COLUMNS = contactColumns();

export function contactStore(
  db: Db,
  properties: PropertyStore,
  now: () => number,
  onChange: (portalId: number, changed: ChangedContact[]) => void,
) {
  const q = {
    byVid: db.prepare<[number, number], ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND vid = ? AND deleted = 0`),
    byEmail: db.prepare<[number, string], ContactRow>(`SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND email = ? AND deleted = 0`),
    byUtk: db.prepare<[number, string], ContactRow>(
      `SELECT ${contactColumns('c')} FROM utks u JOIN contacts c ON c.vid = u.vid
       WHERE u.portal_id = ? AND u.utk = ? AND c.deleted = 0`,
    ),
    insert: db.prepare<[number, string | null, string, number, number]>(
      'INSERT INTO contacts (portal_id, email, properties, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
    ),
    // Two updates: setting email (even to its old value) rewrites the contact's entry in the email
    // index, one more page written per update of a random contact.
    update: db.prepare<[string, number, number | null, number]>('UPDATE contacts SET properties = ?, updated_at = ?, history_head = ? WHERE vid = ?'),
    updateEmail: db.prepare<[string | null, string, number, number | null, number]>(
      'UPDATE contacts SET email = ?, properties = ?, updated_at = ?, history_head = ? WHERE vid = ?',
    ),
    setHead: db.prepare<[number, number]>('UPDATE contacts SET history_head = ? WHERE vid = ?'),
    remove: db.prepare<[number, number, number]>('UPDATE contacts SET deleted = 1, updated_at = ? WHERE portal_id = ? AND vid = ?'),
    history: db.prepare<[number, number | null, number, string, string | null, string]>(
      'INSERT INTO contact_history (vid, prev, timestamp, source_type, source_id, changes) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    page: db.prepare<[number, number, number], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND deleted = 0 AND vid > ? ORDER BY vid LIMIT ?`,
    ),
    recent: db.prepare<[number, number, number, number, number], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND deleted = 0
       AND (updated_at < ? OR (updated_at = ? AND vid < ?)) ORDER BY updated_at DESC, vid DESC LIMIT ?`,
    ),
    // Vids grow with creation, so the vid index walked backwards is creation order, newest first.
    created: db.prepare<[number, number, number, number], ContactRow>(
      `SELECT ${COLUMNS} FROM contacts WHERE portal_id = ? AND deleted = 0 AND vid < ? AND created_at <= ? ORDER BY vid DESC LIMIT ?`,
    ),
    // A deleted property's values go from every contact; updated_at stays (no one wrote them).
    forget: db.prepare<[string, number, string]>(
      'UPDATE contacts SET properties = json_remove(properties, ?) WHERE portal_id = ? AND json_type(properties, ?) IS NOT NULL',
    ),
    stats: db.prepare<[number], { n: number; last: number | null }>(
      'SELECT count(*) AS n, max(created_at) AS last FROM contacts WHERE portal_id = ? AND deleted = 0',
    ),
    linkUtk: db.prepare<[number, string, number, number]>(
      'INSERT INTO utks (portal_id, utk, vid, linked_at) VALUES (?, ?, ?, ?) ON CONFLICT (portal_id, utk) DO UPDATE SET vid = excluded.vid, linked_at = excluded.linked_at',
    ),
    utksOf: db.prepare<[number], { utk: string; linked_at: number }>('SELECT utk, linked_at FROM utks WHERE vid = ? ORDER BY linked_at'),
    // The chain from the contact's newest write back to its first.
    historyOf: db.prepare<[number], { changes: string; source_type: string; source_id: string | null; timestamp: number }>(
      `WITH RECURSIVE chain AS (
         SELECT * FROM contact_history WHERE seq = ?
         UNION ALL SELECT h.* FROM contact_history h JOIN chain c ON h.seq = c.prev
       ) SELECT changes, source_type, source_id, timestamp FROM chain ORDER BY seq DESC`,
    ),
    submissionsOf: db.prepare<[number], { conversion_id: string; form_guid: string; timestamp: number; page_url: string | null; page_title: string | null; title: string | null }>(
      `SELECT s.conversion_id, s.form_guid, s.timestamp, s.page_url, s.page_title, json_extract(f.definition, '$.name') AS title
       FROM form_submissions s LEFT JOIN forms f ON f.guid = s.form_guid WHERE s.vid = ? ORDER BY s.timestamp DESC`,
    ),
    membershipsOf: db.prepare<[number], { list_id: number; internal_list_id: number; added_at: number }>(
      'SELECT m.list_id, l.internal_list_id, m.added_at FROM list_members m JOIN lists l ON l.list_id = m.list_id WHERE m.vid = ? ORDER BY m.list_id',
    ),
  };

  /** Validates, then applies the writes to `row` (or a new contact). `system` writes are the
   * platform's own (counters, dates): they may set read-only properties. Returns the contact as
   * written. */
  function write(portalId: number, row: ContactRow | undefined, given: Write[], source: Source, system: Write[] = []): Required<ChangedContact> {
    const invalid = [...properties.validate(portalId, given), ...(system.length ? properties.validate(portalId, system, { allowReadOnly: true }) : [])];
    if (invalid.length) throw badRequest('Property values were not valid', { validationResults: invalid });
    const writes = system.length ? [...given, ...system] : given;
    const t = now();
    const props: Record<string, string> = row ? JSON.parse(row.properties) : { createdate: String(t) };
    const changed: Write[] = row ? [] : [{ property: 'createdate', value: String(t) }];
    for (const w of writes) {
      const value = w.property == 'email' ? w.value.toLowerCase() : w.value;
      if ((Object.hasOwn(props, w.property) ? props[w.property] : '') == value) continue;
      if (value === '') delete props[w.property];
      else props[w.property] = value;
      changed.push({ property: w.property, value });
    }
    if (row && !changed.length) return { vid: row.vid, properties: props };
    props.lastmodifieddate = String(t);
    const email = props.email ?? null;
    if (email && email != row?.email) {
      const owner = q.byEmail.get(portalId, email);
      if (owner && owner.vid != row?.vid) throw existsError(owner);
    }
    // History for what people and systems set; the calculated dates and the analytics counters
    // change on every write and page view, and their versions are synthesised on read.
    const kept = source.type == 'ANALYTICS' ? [] : changed.filter((c) => !CALCULATED.has(c.property));
    const changes = kept.length ? JSON.stringify(Object.fromEntries(kept.map((c) => [c.property, c.value]))) : undefined;
    const recordWrite = (vid: number) => Number(q.history.run(vid, row?.history_head ?? null, t, source.type, source.id ?? null, changes!).lastInsertRowid);
    if (!row) {
      const vid = Number(q.insert.run(portalId, email, JSON.stringify(props), t, t).lastInsertRowid);
      if (changes) q.setHead.run(recordWrite(vid), vid);
      return { vid, properties: props };
    }
    const head = changes ? recordWrite(row.vid) : row.history_head;
    if (email != row.email) q.updateEmail.run(email, JSON.stringify(props), t, head, row.vid);
    else q.update.run(JSON.stringify(props), t, head, row.vid);
    return { vid: row.vid, properties: props };
  }

  /** The ORDER BY of a search: `sort` must name one of the portal's properties (the 400 names it). */
  function searchOrder(portalId: number, sort?: { property: string; order?: 'ASC' | 'DESC' }) {
    if (!sort) return 'vid';
    const p = properties.definitions(portalId).get(sort.property);
    if (!p || p.deleted) throw badRequest(`query.sort: '${sort.property}' is not a contact property`);
    const value = ['number', 'datetime', 'date'].includes(p.type) ? 'CAST(json_extract(properties, @sortPath) AS REAL)' : 'lower(json_extract(properties, @sortPath))';
    const dir = sort.order ?? 'DESC';
    return `${value} ${dir} NULLS LAST, vid ${dir}`;
  }

  /** 409 CONTACT_EXISTS with the owner's identity profile (camelCase, as the legacy API). */
  function existsError(owner: ContactRow) {
    const utks = q.utksOf.all(owner.vid);
    return conflict('Contact already exists', {
      error: 'CONTACT_EXISTS',
      identityProfile: {
        vid: owner.vid,
        identity: [
          { value: owner.email, type: 'EMAIL', timestamp: owner.created_at, isPrimary: true },
          ...utks.map((u) => ({ value: u.utk, type: 'LEAD_GUID', timestamp: u.linked_at })),
        ],
        linkedVid: [],
        isContact: true,
        savedAtTimestamp: owner.updated_at,
      },
    });
  }

  const tx = <A extends unknown[], R>(fn: (...a: A) => R) => transaction(db, fn);

  /** The contact record; `profile` reads show every property (with history by default). */
  type Utk = { utk: string; linked_at: number };
  type Submission = ReturnType<typeof q.submissionsOf.all>[number];
  /** Identities and submissions of many contacts in two queries (pages of 100 would take 200). */
  const inStatements = new Map<number, { utks: Statement; submissions: Statement }>();
  function prefetch(vids: number[]) {
    let s = inStatements.get(vids.length);
    if (!s) {
      const marks = vids.map(() => '?').join(',');
      s = {
        utks: db.prepare(`SELECT vid, utk, linked_at FROM utks WHERE vid IN (${marks}) ORDER BY linked_at`),
        submissions: db.prepare(
          `SELECT s.vid, s.conversion_id, s.form_guid, s.timestamp, s.page_url, s.page_title, json_extract(f.definition, '$.name') AS title
           FROM form_submissions s LEFT JOIN forms f ON f.guid = s.form_guid WHERE s.vid IN (${marks}) ORDER BY s.timestamp DESC`,
        ),
      };
      inStatements.set(vids.length, s);
    }
    const group = <T extends { vid: number }>(rows: T[]) => {
      const m = new Map<number, T[]>();
      for (const r of rows) (m.get(r.vid) ?? m.set(r.vid, []).get(r.vid)!).push(r);
      return m;
    };
    return {
      utks: group(s.utks.all(...vids) as (Utk & { vid: number })[]),
      submissions: group(s.submissions.all(...vids) as (Submission & { vid: number })[]),
    };
  }

  function record(
    row: ContactRow,
    opts: ReadOptions & { profile?: boolean; addedAt?: number } = {},
    pre?: ReturnType<typeof prefetch>,
  ): ContactRecord {
    const props: Record<string, string> = JSON.parse(row.properties);
    const names = opts.property?.length ? opts.property : opts.profile ? Object.keys(props) : LIST_PROPERTIES;
    const withHistory = (opts.propertyMode ?? (opts.profile ? 'value_and_history' : 'value_only')) == 'value_and_history';
    // Newest write first: a property's versions are the writes that changed it.
    const history = withHistory && row.history_head ? q.historyOf.all(row.history_head).map((h) => ({ ...h, changes: JSON.parse(h.changes) as Record<string, string> })) : [];
    const out: ContactRecord['properties'] = {};
    for (const name of names) {
      // Own values only: a requested `toString` or a property named `constructor` is not inherited.
      if (!Object.hasOwn(props, name)) continue;
      out[name] = { value: props[name] };
      if (withHistory) {
        // Writes from before the property was (re-)created belong to a deleted namesake.
        const since = properties.definitions(row.portal_id).get(name)?.createdAt ?? 0;
        const versions = history.filter((h) => Object.hasOwn(h.changes, name) && h.timestamp >= since);
        out[name].versions = versions.length
          ? versions.map((h, i) => ({
              value: h.changes[name],
              'source-type': h.source_type,
              'source-id': h.source_id,
              'source-label': null,
              timestamp: h.timestamp,
              selected: i == 0,
            }))
          : [{ value: props[name], 'source-type': 'CALCULATED', 'source-id': null, 'source-label': null, timestamp: row.updated_at, selected: true }];
      }
    }
    const utks: Utk[] = pre ? (pre.utks.get(row.vid) ?? []) : q.utksOf.all(row.vid);
    const mode = opts.formSubmissionMode ?? 'newest';
    const submissions: Submission[] = mode == 'none' ? [] : pre ? (pre.submissions.get(row.vid) ?? []) : q.submissionsOf.all(row.vid);
    const picked = mode == 'all' ? submissions : mode == 'oldest' ? submissions.slice(-1) : submissions.slice(0, 1);
    return {
      ...(opts.addedAt !== undefined ? { addedAt: opts.addedAt } : {}),
      vid: row.vid,
      'canonical-vid': row.vid,
      'merged-vids': [],
      'portal-id': row.portal_id,
      'is-contact': true,
      properties: out,
      'form-submissions': picked.map((s) => ({
        'conversion-id': s.conversion_id,
        timestamp: s.timestamp,
        'form-id': s.form_guid,
        'portal-id': row.portal_id,
        'page-url': s.page_url ?? '',
        'page-title': s.page_title ?? '',
        title: s.title ?? '',
        'meta-data': [],
      })),
      'identity-profiles': [
        {
          vid: row.vid,
          'saved-at-timestamp': row.updated_at,
          'deleted-changed-timestamp': 0,
          identities: [
            ...(row.email ? [{ type: 'EMAIL' as const, value: row.email, timestamp: row.created_at, 'is-primary': true }] : []),
            ...utks.map((u) => ({ type: 'LEAD_GUID' as const, value: u.utk, timestamp: u.linked_at })),
          ],
        },
      ],
      'merge-audits': [],
      ...(opts.showListMemberships || (opts.profile && opts.showListMemberships !== false)
        ? {
            'list-memberships': q.membershipsOf.all(row.vid).map((m) => ({
              'static-list-id': m.list_id,
              'internal-list-id': m.internal_list_id,
              timestamp: m.added_at,
              vid: row.vid,
              'is-member': true,
            })),
          }
        : {}),
    };
  }

  const get = (portalId: number, vid: number) => q.byVid.get(portalId, vid);

  return {
    record,
    /** Records of a page of rows; `addedAt` gives each its sort timestamp. */
    records(rows: ContactRow[], opts: ReadOptions, addedAt?: (row: ContactRow) => number) {
      const pre = rows.length ? prefetch(rows.map((r) => r.vid)) : undefined;
      return rows.map((r) => record(r, { ...opts, addedAt: addedAt?.(r) }, pre));
    },
    get,
    getByEmail: (portalId: number, email: string) => q.byEmail.get(portalId, email.toLowerCase()),
    getByUtk: (portalId: number, utk: string) => q.byUtk.get(portalId, utk),
    require(portalId: number, vid: number) {
      const row = get(portalId, vid);
      if (!row) throw notFound('contact does not exist');
      return row;
    },

    create: tx((portalId: number, writes: Write[], source: Source = { type: 'API' }) => {
      const email = writes.find((w) => w.property == 'email')?.value;
      if (email && isEmail(email)) {
        const owner = q.byEmail.get(portalId, email.toLowerCase());
        if (owner) throw existsError(owner);
      }
      const written = write(portalId, undefined, writes, source);
      onChange(portalId, [written]);
      return written.vid;
    }),

    /** `allowReadOnly` makes every write a system one; `system` adds system writes to checked ones. */
    update: tx((portalId: number, vid: number, writes: Write[], source?: Source, allowReadOnly?: boolean, system: Write[] = []) => {
      const row = get(portalId, vid);
      if (!row) throw notFound('resource not found');
      const src = source ?? { type: 'API' };
      const written = allowReadOnly ? write(portalId, row, [], src, [...writes, ...system]) : write(portalId, row, writes, src, system);
      onChange(portalId, [written]);
    }),

    /** By email: the email in the path wins unless the body changes it. */
    upsertByEmail: tx((portalId: number, email: string, writes: Write[], source: Source = { type: 'API' }, system: Write[] = []) => {
      if (!isEmail(email))
        throw badRequest('Property values were not valid', {
          validationResults: [{ isValid: false, message: `Email address ${email} is invalid`, error: 'INVALID_EMAIL', name: 'email' }],
        });
      const row = q.byEmail.get(portalId, email.toLowerCase());
      const all = writes.some((w) => w.property == 'email') ? writes : [{ property: 'email', value: email }, ...writes];
      const written = write(portalId, row, all, source, system);
      onChange(portalId, [written]);
      return { vid: written.vid, isNew: !row };
    }),

    /** All or nothing: any invalid item rejects the batch, naming it by index. */
    batch: tx((portalId: number, items: { vid?: number; email?: string; properties: Write[] }[]) => {
      const written: ChangedContact[] = [];
      items.forEach((item, index) => {
        try {
          if (item.vid) {
            const row = get(portalId, item.vid);
            if (!row) throw notFound(`contact ${item.vid} does not exist`);
            written.push(write(portalId, row, item.properties, { type: 'API' }));
          } else if (item.email) {
            if (!isEmail(item.email)) throw badRequest(`Email address ${item.email} is invalid`);
            const row = q.byEmail.get(portalId, item.email.toLowerCase());
            const writes = item.properties.some((w) => w.property == 'email')
              ? item.properties
              : [{ property: 'email', value: item.email }, ...item.properties];
            written.push(write(portalId, row, writes, { type: 'API' }));
          } else throw badRequest('each item needs a vid or an email');
        } catch (err) {
          if (!(err instanceof PlatformError)) throw err;
          throw badRequest(`item ${index}: ${err.message}`, {
            failureMessages: [{ index, error: { status: 'error', message: err.message } }],
            ...(err.extra.validationResults ? { validationResults: err.extra.validationResults } : {}),
          });
        }
      });
      onChange(portalId, written);
    }),

    remove: tx((portalId: number, vid: number) => {
      if (!get(portalId, vid)) throw notFound('contact does not exist');
      q.remove.run(now(), portalId, vid);
      db.prepare('DELETE FROM utks WHERE vid = ?').run(vid);
      db.prepare('DELETE FROM list_members WHERE vid = ?').run(vid);
      onChange(portalId, [{ vid }]);
    }),

    /** Stores the link only: services/visitor-links.ts also counts the visitor's earlier events. */
    linkUtk(portalId: number, utk: string, vid: number) {
      q.linkUtk.run(portalId, utk, vid, now());
    },

    /** Contacts by vid ascending after `vidOffset`: one more than asked tells `has-more`. */
    page(portalId: number, count: number, vidOffset = 0) {
      const rows = q.page.all(portalId, vidOffset, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },

    /** Newest update first, before (timeOffset, vidOffset). */
    recent(portalId: number, count: number, timeOffset = Number.MAX_SAFE_INTEGER, vidOffset = Number.MAX_SAFE_INTEGER) {
      const rows = q.recent.all(portalId, timeOffset, timeOffset, vidOffset, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },

    /** Newest creation first, before `vidOffset` (or created at `timeOffset` or earlier when only it is given). */
    created(portalId: number, count: number, timeOffset?: number, vidOffset?: number) {
      const time = vidOffset === undefined ? (timeOffset ?? Number.MAX_SAFE_INTEGER) : Number.MAX_SAFE_INTEGER;
      const rows = q.created.all(portalId, vidOffset ?? Number.MAX_SAFE_INTEGER, time, count + 1);
      return { rows: rows.slice(0, count), hasMore: rows.length > count };
    },

    /** Removes a (deleted) property's values from every contact of the portal. The names of
     * properties are letters, digits and _, so the JSON path needs no quoting. */
    forgetProperty(portalId: number, name: string) {
      const path = `$.${name}`;
      return q.forget.run(path, portalId, path).changes;
    },

    /** Substring matches; by vid unless `sort` names a property (`order` DESC by default, as the
     * legacy API; numbers and dates compare as numbers; contacts without a value come last). */
    search(portalId: number, text: string, count: number, offset: number, sort?: { property: string; order?: 'ASC' | 'DESC' }) {
      const like = `%${text.toLowerCase().replace(/[%_\\]/g, '\\$&')}%`;
      const where = `portal_id = @portal AND deleted = 0 AND (email LIKE @like ESCAPE '\\'
        OR lower(json_extract(properties, '$.firstname')) LIKE @like ESCAPE '\\'
        OR lower(json_extract(properties, '$.lastname')) LIKE @like ESCAPE '\\'
        OR lower(coalesce(json_extract(properties, '$.firstname'), '') || ' ' || coalesce(json_extract(properties, '$.lastname'), '')) LIKE @like ESCAPE '\\'
        OR lower(json_extract(properties, '$.company')) LIKE @like ESCAPE '\\'
        OR json_extract(properties, '$.phone') LIKE @like ESCAPE '\\')`;
      const total = (db.prepare(`SELECT count(*) AS n FROM contacts WHERE ${where}`).get({ like, portal: portalId }) as { n: number }).n;
      const rows = db
        .prepare(`SELECT ${COLUMNS} FROM contacts WHERE ${where} ORDER BY ${searchOrder(portalId, sort)} LIMIT @count OFFSET @offset`)
        .all({ like, portal: portalId, count, offset, ...(sort && { sortPath: `$.${sort.property}` }) }) as ContactRow[];
      return { rows, total };
    },

    statistics(portalId: number) {
      const s = q.stats.get(portalId)!;
      return { contacts: s.n, lastNewContactAt: s.last };
    },
  };
}

export type ContactStore = ReturnType<typeof contactStore>;
