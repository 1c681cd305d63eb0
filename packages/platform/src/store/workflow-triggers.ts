/** Enrollment by criteria: a workflow with `segmentCriteria` (the dynamic lists' filters: OR of
 * AND groups over properties, HAS_FILLED_OUT_FORM among them) enrols a contact when a write makes
 * it match — a form submission of the form named, a property reaching a value. Checked in the
 * writing transaction on the contacts it changed, as the dynamic lists are, and only against the
 * workflows that read a property the write changed (a form filter reads what a submission sets).
 * A contact already in the workflow stays where it is; one that has been through it comes back
 * only when the workflow allows contacts to trigger it multiple times.
 *
 * The portal's triggering workflows are cached per process (db/shared-cache.ts: kept right across
 * processes on PostgreSQL), since every contact write asks for them. */
import { type Engine, type Queryable, type Transaction, sql } from '../db/engine';
import { sharedCache } from '../db/shared-cache';
import type { ChangedContact } from './contacts';
import { formsNamed, matches, propertiesRead, type ListFilters } from './list-filters';

interface Trigger {
  id: number;
  filters: ListFilters;
  forms: string[];
  properties: Set<string>;
}

/** What a workflow definition says about its triggers. */
interface Definition {
  enabled: boolean;
  segmentCriteria?: ListFilters;
}

const q = {
  workflows: sql<[number], { id: number; definition: string }>(
    'SELECT id, definition FROM workflows WHERE portal_id = ? AND deleted = 0 ORDER BY id',
  ),
  submitted: sql<[number, number], { form_guid: string }>(
    'SELECT DISTINCT form_guid FROM form_submissions WHERE portal_id = ? AND vid = ?',
  ),
};

/** `enrol` enrols a matching contact unless the workflow's rules keep it out (workflows.ts). */
export function workflowTriggers(
  engine: Engine,
  enrol: (t: Transaction, workflowId: number, portalId: number, vid: number) => Promise<unknown>,
) {
  const cache = sharedCache(engine, async (db, key): Promise<Trigger[]> => {
    const triggers: Trigger[] = [];
    for (const row of await db.all(q.workflows, Number(key.slice(key.indexOf(':') + 1)))) {
      const d = JSON.parse(row.definition) as Definition;
      if (d.enabled && d.segmentCriteria?.length)
        triggers.push({
          id: row.id,
          filters: d.segmentCriteria,
          forms: formsNamed(d.segmentCriteria),
          properties: propertiesRead(d.segmentCriteria),
        });
    }
    return triggers;
  });
  const key = (portalId: number) => `workflow-triggers:${portalId}`;

  return {
    /** A workflow of the portal was written or deleted, in the transaction `db`. */
    changed: (db: Queryable, portalId: number) => cache.changed(db, key(portalId)),

    /** The contacts-changed listener (services); a function, not a method: it is passed on alone. */
    enrolMatching: async (t: Transaction, portalId: number, changed: ChangedContact[]) => {
      const triggers = await cache.get(t, key(portalId));
      if (!triggers.length) return;
      for (const c of new Map(changed.map((c) => [c.vid, c])).values()) {
        // Deleted (no properties), or changed nothing a trigger reads.
        if (!c.properties) continue;
        const candidates = triggers.filter((w) => !c.names || c.isNew || c.names.some((n) => w.properties.has(n)));
        if (!candidates.length) continue;
        let forms: Set<string> | undefined;
        const needForms = candidates.some((w) => w.forms.length);
        if (needForms) forms = new Set((await t.all(q.submitted, portalId, c.vid)).map((r) => r.form_guid));
        const subject = { properties: c.properties, hasSubmitted: (guid: string) => forms?.has(guid) ?? false };
        for (const w of candidates) if (matches(w.filters, subject)) await enrol(t, w.id, portalId, c.vid);
      }
    },
  };
}
