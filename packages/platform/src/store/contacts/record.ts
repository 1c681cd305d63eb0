/** The v1 contact record: the JSON the contacts API answers for a contact (with its property
 * versions, identities, form submissions and list memberships), and the identity profile of the
 * 409 an existing email gets. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import type { Queryable } from '../../db/engine';
import { conflict } from '../../domain/errors';
import type { PropertyStore } from '../properties';
import { type ContactRow, propertiesOf } from './plan';
import type { ContactSql } from './sql';

export type ContactRecord = z.input<typeof schemas.contact>;

export interface ReadOptions {
  /** Only these properties (list-style reads default to a small standard set). */
  property?: string[];
  propertyMode?: 'value_only' | 'value_and_history';
  formSubmissionMode?: 'all' | 'none' | 'newest' | 'oldest';
  showListMemberships?: boolean;
}

/** The properties list-style reads return when `property` is not given. */
const LIST_PROPERTIES = ['firstname', 'lastname', 'company', 'lastmodifieddate'];

export function contactRecords({ q }: ContactSql, properties: PropertyStore) {
  /** Identities and submissions of many contacts in two queries. */
  async function prefetch(db: Queryable, vids: number[]) {
    const s = q.inPage(vids.length);
    const group = <T extends { vid: number }>(rows: T[]) => {
      const m = new Map<number, T[]>();
      for (const r of rows) (m.get(r.vid) ?? m.set(r.vid, []).get(r.vid)!).push(r);
      return m;
    };
    const [utks, submissions] = await Promise.all([db.all(s.utks, ...vids), db.all(s.submissions, ...vids)]);
    return { utks: group(utks), submissions: group(submissions) };
  }
  type Prefetched = Awaited<ReturnType<typeof prefetch>>;

  /** The contact record; `profile` reads show every property (with history by default). */
  async function record(
    db: Queryable,
    row: ContactRow,
    opts: ReadOptions & { profile?: boolean; addedAt?: number } = {},
    pre?: Prefetched,
  ): Promise<ContactRecord> {
    const props = propertiesOf(row);
    const names = opts.property?.length ? opts.property : opts.profile ? Object.keys(props) : LIST_PROPERTIES;
    const withHistory =
      (opts.propertyMode ?? (opts.profile ? 'value_and_history' : 'value_only')) == 'value_and_history';
    const mode = opts.formSubmissionMode ?? 'newest';
    const withMemberships = opts.showListMemberships || (opts.profile && opts.showListMemberships !== false);
    // Read at once: on PostgreSQL, within `reading`, one round trip for them all.
    const [historyRows, definitions, utks, submissions, memberships] = await Promise.all([
      withHistory && row.history_head ? db.all(q.historyOf, row.history_head) : [],
      withHistory ? properties.definitions(db, row.portal_id) : undefined,
      pre ? (pre.utks.get(row.vid) ?? []) : db.all(q.utksOf, row.vid),
      mode == 'none' ? [] : pre ? (pre.submissions.get(row.vid) ?? []) : db.all(q.submissionsOf, row.vid),
      withMemberships ? db.all(q.membershipsOf, row.vid) : undefined,
    ]);
    // Newest write first: a property's versions are the writes that changed it.
    const history = historyRows.map((h) => ({ ...h, changes: JSON.parse(h.changes) as Record<string, string> }));
    const out: ContactRecord['properties'] = {};
    for (const name of names) {
      // Own values only: a requested `toString` or a property named `constructor` is not inherited.
      if (!Object.hasOwn(props, name)) continue;
      out[name] = { value: props[name] };
      if (withHistory) {
        // Writes from before the property was (re-)created belong to a deleted namesake.
        const since = definitions!.get(name)?.createdAt ?? 0;
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
          : [
              {
                value: props[name],
                'source-type': 'CALCULATED',
                'source-id': null,
                'source-label': null,
                timestamp: row.updated_at,
                selected: true,
              },
            ];
      }
    }
    const picked = mode == 'all' ? submissions : mode == 'oldest' ? submissions.slice(-1) : submissions.slice(0, 1);
    // Built without object spreads, which cost a page of 100 contacts a good part of its time;
    // the keys in the order the API shows them.
    const identities: ContactRecord['identity-profiles'][number]['identities'] = row.email
      ? [{ type: 'EMAIL', value: row.email, timestamp: row.created_at, 'is-primary': true }]
      : [];
    for (const u of utks) identities.push({ type: 'LEAD_GUID', value: u.utk, timestamp: u.linked_at });
    // A list's page shows when each contact was added, first.
    const record = (opts.addedAt === undefined ? {} : { addedAt: opts.addedAt }) as ContactRecord;
    record.vid = row.vid;
    record['canonical-vid'] = row.vid;
    record['merged-vids'] = [];
    record['portal-id'] = row.portal_id;
    record['is-contact'] = true;
    record.properties = out;
    record['form-submissions'] = picked.map((s) => {
      const submission: ContactRecord['form-submissions'][number] = {
        'conversion-id': s.conversion_id,
        timestamp: s.timestamp,
        'form-id': s.form_guid,
        'portal-id': row.portal_id,
        'page-url': s.page_url ?? '',
        'page-title': s.page_title ?? '',
        title: s.title ?? '',
        'meta-data': [],
      };
      // What the visitor agreed to, with the texts shown (forms with legalConsentOptions).
      if (s.consent)
        submission['legal-consent'] = JSON.parse(
          s.consent,
        ) as ContactRecord['form-submissions'][number]['legal-consent'];
      return submission;
    });
    record['identity-profiles'] = [
      { vid: row.vid, 'saved-at-timestamp': row.updated_at, 'deleted-changed-timestamp': 0, identities },
    ];
    record['merge-audits'] = [];
    if (memberships)
      record['list-memberships'] = memberships.map((m) => ({
        'static-list-id': m.list_id,
        'internal-list-id': m.internal_list_id,
        timestamp: m.added_at,
        vid: row.vid,
        'is-member': true,
      }));
    return record;
  }

  return {
    record,
    /** Records of a page of rows; `addedAt` gives each its sort timestamp. */
    records: async (db: Queryable, rows: ContactRow[], opts: ReadOptions, addedAt?: (row: ContactRow) => number) => {
      const pre = rows.length
        ? await prefetch(
            db,
            rows.map((r) => r.vid),
          )
        : undefined;
      return Promise.all(rows.map((r) => record(db, r, { ...opts, addedAt: addedAt?.(r) }, pre)));
    },
    /** 409 CONTACT_EXISTS with the owner's identity profile (camelCase, as the legacy API). */
    existsError: async (db: Queryable, owner: ContactRow) => {
      const utks = await db.all(q.utksOf, owner.vid);
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
    },
  };
}

export type ContactRecords = ReturnType<typeof contactRecords>;
