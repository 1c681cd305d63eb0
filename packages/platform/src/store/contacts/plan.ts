/** A contact as stored, what writes it, and plan(): a write worked out in memory, before it is
 * stored (by the store, one contact at a time, or by the batch writer, many at once). */
import type { Queryable } from '../../db/engine';
import { badRequest } from '../../domain/errors';
import { ANALYTICS } from '../default-properties';
import type { PropertyStore } from '../properties';

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

/** Where a value came from (`source-type` of a property version). */
export interface Source {
  type: 'API' | 'FORM' | 'ANALYTICS' | 'WORKFLOW' | 'CALCULATED';
  id?: string | null;
}

/** A contact a write touched, with its properties after the write; without them it was deleted
 * (dynamic lists re-check it from these, without reading it again). */
export interface ChangedContact {
  vid: number;
  properties?: Record<string, string>;
  /** Made by this write: in no list yet, so nothing to take it out of. */
  isNew?: boolean;
  /** The properties the write changed, when known (only these can move it between lists). */
  names?: string[];
  /** The guids of the forms it has submitted, when the writer knows them all (a form
   * submission's): the lists' re-check does not read them again. */
  submitted?: string[];
}

/** A write worked out in memory (plan()), before it is stored. */
export interface Plan {
  props: Record<string, string>;
  email: string | null;
  /** The history entry: the changed properties as JSON. */
  changes?: string;
  t: number;
  changed: boolean;
  /** The properties it changes. */
  names: string[];
}

/** Where a contact made through the API comes from: not a visit (the modelled platform's
 * "Offline Sources", drill-down API). Its first session, if earlier, replaces it as the original
 * source (store/tracking.ts). */
const OFFLINE_SOURCE: Record<string, string> = {
  [ANALYTICS.source]: 'OFFLINE',
  [ANALYTICS.sourceData1]: 'API',
  [ANALYTICS.latestSource]: 'OFFLINE',
  [ANALYTICS.latestSourceData1]: 'API',
};

const OFFLINE_ENTRIES = Object.entries(OFFLINE_SOURCE);

/** Properties whose history is not kept (see plan()). */
const CALCULATED = new Set(['createdate', 'lastmodifieddate', ...Object.keys(OFFLINE_SOURCE)]);

/** A contact's properties as its row holds them. */
export const propertiesOf = (row: Pick<ContactRow, 'properties'>) =>
  JSON.parse(row.properties) as Record<string, string>;

/** Checks writes against the portal's properties before they are planned: a 400 naming every
 * invalid value. `system` writes are the platform's own (counters, dates): they may set read-only
 * properties. */
export async function checkWrites(
  properties: PropertyStore,
  db: Queryable,
  portalId: number,
  given: Write[],
  system: Write[] = [],
) {
  const invalid = [
    ...(await properties.validate(db, portalId, given)),
    ...(system.length ? await properties.validate(db, portalId, system, { allowReadOnly: true }) : []),
  ];
  if (invalid.length) throw badRequest('Property values were not valid', { validationResults: invalid });
}

/** Applies checked writes to `row` (or a new contact), at time `t`, in memory. `changes` is the
 * history entry (none when only calculated values change); nothing changes an existing row when
 * `changed` is false. */
export function plan(row: ContactRow | undefined, writes: Write[], source: Source, t: number): Plan {
  // A new contact's properties are set one by one on an empty object: V8 gives an object made by
  // a spread no room to grow in place, and adding the written ones to it cost more.
  const props: Record<string, string> = row ? propertiesOf(row) : {};
  const changed: Write[] = [];
  const set = (property: string, value: string) => {
    if (value === '') delete props[property];
    else props[property] = value;
    changed.push({ property, value });
  };
  if (!row) {
    set('createdate', String(t));
    if (source.type == 'API') for (const [property, value] of OFFLINE_ENTRIES) set(property, value);
  }
  for (const w of writes) {
    const value = w.property == 'email' ? w.value.toLowerCase() : w.value;
    if ((Object.hasOwn(props, w.property) ? props[w.property] : '') != value) set(w.property, value);
  }
  if (row && !changed.length) return { props, email: row.email, t, changed: false, names: [] };
  props.lastmodifieddate = String(t);
  // History for what people and systems set; the calculated dates and the analytics counters
  // change on every write and page view, and their versions are synthesised on read.
  const kept: Record<string, string> = {};
  let anyKept = false;
  if (source.type != 'ANALYTICS')
    for (const c of changed) {
      if (CALCULATED.has(c.property)) continue;
      kept[c.property] = c.value;
      anyKept = true;
    }
  const names = changed.map((c) => c.property);
  names.push('lastmodifieddate');
  return {
    props,
    email: props.email ?? null,
    changes: anyKept ? JSON.stringify(kept) : undefined,
    t,
    changed: true,
    names,
  };
}
