/** Workflows (§4.5): definitions (portal-scoped, soft-deleted), enrollments by email, and the log
 * of what each workflow did for each contact. The steps run in workflow-engine.ts. A contact has
 * at most one active enrollment per workflow. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import type { Queryable } from '../db/engine';
import { type Db, transaction } from '../db/open';
import { PlatformError, badRequest, notFound } from '../domain/errors';
import type { ContactStore } from './contacts';
import type { PropertyStore } from './properties';
import { workflowEngine, type Action, type EmailSender, type EngineDeps, type ListMembers, type Log, type LogEventType } from './workflow-engine';

type Definition = z.output<typeof schemas.workflowWrite>;
export type WorkflowRecord = z.input<typeof schemas.workflow>;
export type LogEvent = z.input<typeof schemas.logEvent>;

interface WorkflowRow {
  id: number;
  portal_id: number;
  definition: string;
  created_at: number;
  updated_at: number;
}

const COLUMNS = 'id, portal_id, definition, created_at, updated_at';

const preconditionFailed = (message: string) => new PlatformError('precondition-failed', message);

interface WorkflowDeps {
  contacts: ContactStore;
  properties: Pick<PropertyStore, 'validate'>;
  lists: ListMembers;
  email: EmailSender;
  /** Runs a step in a transaction of the engine (workflow-engine.ts). */
  tx: EngineDeps['tx'];
}

export function workflowStore(db: Db, { contacts, properties, lists, email, tx }: WorkflowDeps, now: () => number, fetchFn: typeof fetch) {
  const q = {
    insert: db.prepare<[number, string, number, number]>('INSERT INTO workflows (portal_id, definition, created_at, updated_at) VALUES (?, ?, ?, ?)'),
    byId: db.prepare<[number, number], WorkflowRow>(`SELECT ${COLUMNS} FROM workflows WHERE portal_id = ? AND id = ? AND deleted = 0`),
    all: db.prepare<[number], WorkflowRow>(`SELECT ${COLUMNS} FROM workflows WHERE portal_id = ? AND deleted = 0 ORDER BY id`),
    definition: db.prepare<[number], { definition: string }>('SELECT definition FROM workflows WHERE id = ?'),
    remove: db.prepare<[number, number]>('UPDATE workflows SET deleted = 1, updated_at = ? WHERE id = ?'),
    enroll: db.prepare<[number, number, number, number, number]>(
      "INSERT INTO enrollments (workflow_id, portal_id, vid, next_run_at, status, enrolled_at) VALUES (?, ?, ?, ?, 'active', ?)",
    ),
    latest: db.prepare<[number, number], { status: string }>(
      'SELECT status FROM enrollments WHERE workflow_id = ? AND vid = ? ORDER BY id DESC LIMIT 1',
    ),
    active: db.prepare<[number, number], { step: number; next_run_at: number }>(
      "SELECT step, next_run_at FROM enrollments WHERE workflow_id = ? AND vid = ? AND status = 'active'",
    ),
    endOne: db.prepare<[number, number], { vid: number }>(
      "UPDATE enrollments SET status = 'unenrolled' WHERE workflow_id = ? AND vid = ? AND status = 'active' RETURNING vid",
    ),
    endAll: db.prepare<[number], { vid: number }>(
      "UPDATE enrollments SET status = 'unenrolled' WHERE workflow_id = ? AND status = 'active' RETURNING vid",
    ),
    current: db.prepare<[number, number], WorkflowRow>(
      `SELECT ${COLUMNS.replace(/(\w+)/g, 'w.$1')} FROM enrollments e JOIN workflows w ON w.id = e.workflow_id
       WHERE e.portal_id = ? AND e.vid = ? AND e.status = 'active' AND w.deleted = 0 ORDER BY w.id`,
    ),
    log: db.prepare<[number, number, string, number | null, number, string | null]>(
      'INSERT INTO workflow_log (workflow_id, vid, event_type, step_id, timestamp, detail) VALUES (?, ?, ?, ?, ?, ?)',
    ),
    past: db.prepare<[number, number], { event_type: LogEventType; step_id: number | null; timestamp: number; detail: string | null }>(
      'SELECT event_type, step_id, timestamp, detail FROM workflow_log WHERE workflow_id = ? AND vid = ? ORDER BY seq DESC',
    ),
  };

  const log: Log = (workflowId, vid, eventType, stepId, detail) => q.log.run(workflowId, vid, eventType, stepId, now(), detail ?? null);
  const definitionOf = (row: WorkflowRow): Definition => JSON.parse(row.definition);

  /** A step's id is its position in `actions`. */
  function record(row: WorkflowRow): WorkflowRecord {
    const { name, type, enabled, allowContactToTriggerMultipleTimes, actions } = definitionOf(row);
    return {
      id: row.id,
      portalId: row.portal_id,
      name,
      type,
      enabled,
      insertedAt: row.created_at,
      updatedAt: row.updated_at,
      allowContactToTriggerMultipleTimes,
      actions: actions.map((action, stepId) => ({ ...action, stepId })),
    };
  }

  function requireRow(portalId: number, workflowId: number) {
    const row = q.byId.get(portalId, workflowId);
    if (!row) throw notFound(`workflow ${workflowId} does not exist`);
    return row;
  }

  function requireContactByEmail(portalId: number, email: string) {
    const contact = contacts.getByEmail(portalId, email);
    if (!contact) throw notFound(`no contact has the email ${email}`);
    return contact;
  }

  function requireContact(portalId: number, vid: number) {
    if (!contacts.get(portalId, vid)) throw notFound(`contact ${vid} does not exist`);
  }

  /** A step is checked when the workflow is written, so a mistake is a 4xx to its author rather
   * than a failure for every contact later. It names the portal's own lists and emails (another
   * portal's are not there to see); an EMAIL step is stored with both of its email's ids. */
  async function checkedStep(db: Queryable, portalId: number, action: Action, at: string): Promise<Action> {
    switch (action.type) {
      case 'SET_CONTACT_PROPERTY': {
        const [problem] = properties.validate(portalId, [{ property: action.propertyName, value: action.newValue }]);
        if (problem) throw badRequest(`${at}.${problem.error == 'PROPERTY_DOESNT_EXIST' || problem.error == 'READ_ONLY_VALUE' ? 'propertyName' : 'newValue'}: ${problem.message}`);
        return action;
      }
      case 'ADD_TO_LIST': {
        const kind = lists.kindOf(portalId, action.listId);
        if (!kind) throw notFound(`${at}.listId: no list ${action.listId} in this portal`);
        if (kind == 'DYNAMIC') throw badRequest(`${at}.listId: list ${action.listId} is dynamic; its members follow its filters and cannot be added`);
        return action;
      }
      case 'EMAIL': {
        const found = await email.findCampaign(db, portalId, { campaignId: action.emailCampaignId, contentId: action.emailContentId });
        const field = action.emailCampaignId === undefined ? 'emailContentId' : 'emailCampaignId';
        if (!found || (action.emailContentId !== undefined && found.contentId != action.emailContentId))
          throw notFound(`${at}.${field}: no email ${action[field]} in this portal`);
        return { ...action, emailCampaignId: found.id, emailContentId: found.contentId };
      }
      default:
        return action;
    }
  }

  const end = (workflowId: number, ended: { vid: number }[], detail?: string) =>
    ended.forEach(({ vid }) => log(workflowId, vid, 'UNENROLLED', null, detail));

  const engine = workflowEngine(
    db,
    { contacts, lists, email, log, actionsOf: (id) => (JSON.parse(q.definition.get(id)!.definition) as Definition).actions, tx },
    now,
    fetchFn,
  );

  return {
    list: (portalId: number) => q.all.all(portalId).map(record),
    get: (portalId: number, workflowId: number) => record(requireRow(portalId, workflowId)),

    /** `db`: where the step checks run (the email store is on the engine). */
    async create(db: Queryable, portalId: number, definition: Definition) {
      const actions: Action[] = [];
      for (const [i, action] of definition.actions.entries()) actions.push(await checkedStep(db, portalId, action, `body.actions.${i}`));
      definition.actions = actions;
      const t = now();
      const id = Number(q.insert.run(portalId, JSON.stringify(definition), t, t).lastInsertRowid);
      return record(requireRow(portalId, id));
    },

    remove: transaction(db, (portalId: number, workflowId: number) => {
      requireRow(portalId, workflowId);
      q.remove.run(now(), workflowId);
      end(workflowId, q.endAll.all(workflowId), 'workflow deleted');
    }),

    /** Step 0 is due at once. 412: the workflow is disabled, or the contact is in it (or has been,
     * and the workflow does not let contacts trigger it more than once). With multiple triggers
     * allowed, enrolling an active contact starts it over. */
    enroll: transaction(db, (portalId: number, workflowId: number, email: string) => {
      const row = requireRow(portalId, workflowId);
      const { vid } = requireContactByEmail(portalId, email);
      const { enabled, allowContactToTriggerMultipleTimes } = definitionOf(row);
      if (!enabled) throw preconditionFailed(`workflow ${workflowId} is disabled`);
      const latest = q.latest.get(workflowId, vid);
      if (latest && !allowContactToTriggerMultipleTimes)
        throw preconditionFailed(
          latest.status == 'active'
            ? `contact ${vid} is already enrolled in workflow ${workflowId}`
            : `contact ${vid} has already been through workflow ${workflowId}, which does not allow contacts to trigger it multiple times`,
        );
      end(workflowId, q.endOne.all(workflowId, vid), 're-enrolled');
      const t = now();
      q.enroll.run(workflowId, portalId, vid, t, t);
      log(workflowId, vid, 'ENROLLED', null);
    }),

    /** Ending an enrollment that is not active changes nothing (and is no error). */
    unenroll: transaction(db, (portalId: number, workflowId: number, email: string) => {
      requireRow(portalId, workflowId);
      const { vid } = requireContactByEmail(portalId, email);
      end(workflowId, q.endOne.all(workflowId, vid));
    }),

    currentEnrollments(portalId: number, vid: number) {
      requireContact(portalId, vid);
      return q.current.all(portalId, vid).map(record);
    },

    /** Newest first. */
    pastEvents(portalId: number, workflowId: number, vid: number): LogEvent[] {
      requireRow(portalId, workflowId);
      requireContact(portalId, vid);
      return q.past.all(workflowId, vid).map((e) => ({
        eventType: e.event_type,
        timestamp: e.timestamp,
        workflowId,
        vid,
        stepId: e.step_id,
        ...(e.detail === null ? {} : { detail: e.detail }),
      }));
    },

    /** The remaining steps of the active enrollment: the next one at its due time, each later one
     * after the delays before it. */
    upcomingEvents(portalId: number, workflowId: number, vid: number): LogEvent[] {
      const { actions } = definitionOf(requireRow(portalId, workflowId));
      requireContact(portalId, vid);
      const enrollment = q.active.get(workflowId, vid);
      if (!enrollment) return [];
      let at = enrollment.next_run_at;
      return actions.slice(enrollment.step).map((action: Action, i) => {
        const event = { eventType: action.type, timestamp: at, workflowId, vid, stepId: enrollment.step + i };
        if (action.type == 'DELAY') at += action.delayMillis;
        return event;
      });
    },

    ...engine,
  };
}

export type WorkflowStore = ReturnType<typeof workflowStore>;
