/** Workflows (§4.5): definitions (portal-scoped, soft-deleted), enrollments by email, and the log
 * of what each workflow did for each contact. The steps run in jobs/workflow-engine.ts, on the SQL
 * of workflow-runs.ts. A contact has at most one active enrollment per workflow. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import { type Engine, type Queryable, type Transaction, sql } from '../db/engine';
import { PlatformError, badRequest, notFound } from '../domain/errors';
import type { ContactStore } from './contacts';
import type { SendOrigin } from './email';
import { normaliseFilters, type ListFilters } from './list-filters';
import type { PropertyStore } from './properties';
import { WAITING, workflowRuns, type Action, type Definition, type LogEventType } from './workflow-runs';
import { workflowTriggers } from './workflow-triggers';

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

const q = {
  insert: sql<[number, string, number, number], { id: number }>(
    'INSERT INTO workflows (portal_id, definition, created_at, updated_at) VALUES (?, ?, ?, ?) RETURNING id',
  ),
  byId: sql<[number, number], WorkflowRow>(
    `SELECT ${COLUMNS} FROM workflows WHERE portal_id = ? AND id = ? AND deleted = 0`,
  ),
  all: sql<[number], WorkflowRow>(`SELECT ${COLUMNS} FROM workflows WHERE portal_id = ? AND deleted = 0 ORDER BY id`),
  remove: sql<[number, number]>('UPDATE workflows SET deleted = 1, updated_at = ? WHERE id = ?'),
  // Nothing when the contact is in the workflow already (a concurrent enrollment got there first:
  // the unique index on active enrollments waits for it).
  enroll: sql<[number, number, number, number, number]>(
    `INSERT INTO enrollments (workflow_id, portal_id, vid, next_run_at, status, enrolled_at) VALUES (?, ?, ?, ?, 'active', ?)
     ON CONFLICT (workflow_id, vid) WHERE status = 'active' DO NOTHING`,
  ),
  latest: sql<[number, number], { status: string }>(
    'SELECT status FROM enrollments WHERE workflow_id = ? AND vid = ? ORDER BY id DESC LIMIT 1',
  ),
  active: sql<[number, number], { id: number; step: number; next_run_at: number }>(
    "SELECT id, step, next_run_at FROM enrollments WHERE workflow_id = ? AND vid = ? AND status = 'active'",
  ),
  endOne: sql<[number, number], { vid: number }>(
    "UPDATE enrollments SET status = 'unenrolled' WHERE workflow_id = ? AND vid = ? AND status = 'active' RETURNING vid",
  ),
  endAll: sql<[number], { vid: number }>(
    "UPDATE enrollments SET status = 'unenrolled' WHERE workflow_id = ? AND status = 'active' RETURNING vid",
  ),
  current: sql<[number, number], WorkflowRow>(
    `SELECT ${COLUMNS.replace(/(\w+)/g, 'w.$1')} FROM enrollments e JOIN workflows w ON w.id = e.workflow_id
     WHERE e.portal_id = ? AND e.vid = ? AND e.status = 'active' AND w.deleted = 0 ORDER BY w.id`,
  ),
  app: sql<[number, string], { one: number }>('SELECT 1 AS one FROM app_secrets WHERE portal_id = ? AND client_id = ?'),
  formOfPortal: sql<[number, string], { one: number }>('SELECT 1 AS one FROM forms WHERE portal_id = ? AND guid = ?'),
  // When the step an enrollment waits at will be tried next (its webhook's next attempt).
  nextAttempt: sql<[number], { next_at: number }>(
    "SELECT min(next_at) AS next_at FROM webhook_deliveries WHERE enrollment_id = ? AND status = 'pending'",
  ),
  past: sql<
    [number, number],
    { event_type: LogEventType; step_id: number | null; timestamp: number; detail: string | null }
  >(
    'SELECT event_type, step_id, timestamp, detail FROM workflow_log WHERE workflow_id = ? AND vid = ? ORDER BY seq DESC',
  ),
};

const preconditionFailed = (message: string) => new PlatformError('precondition-failed', message);
const alreadyEnrolled = (vid: number, workflowId: number) =>
  preconditionFailed(`contact ${vid} is already enrolled in workflow ${workflowId}`);

/** The part of the list store workflows use: to check a step's list, and (the engine) ADD_TO_LIST. */
export interface ListMembers {
  addMembers(db: Queryable, portalId: number, listId: number, vids: number[]): Promise<unknown>;
  /** Whether the portal has this list, and of which kind (undefined: no such list). */
  kindOf(db: Queryable, portalId: number, listId: number): Promise<'STATIC' | 'DYNAMIC' | undefined>;
}

/** The part of the email store workflows use: to check a step's email, and (the engine) EMAIL. */
export interface EmailSender {
  findCampaign(
    db: Queryable,
    portalId: number,
    by: { campaignId?: number; contentId?: number },
  ): Promise<{ id: number; contentId: number } | undefined>;
  /** `origin`: the workflow and contact, which the mail catcher's message names and greets. */
  send(
    db: Queryable,
    portalId: number,
    campaignId: number,
    recipient: string,
    origin: SendOrigin,
  ): Promise<{ sent: true } | { sent: false; dropReason: string }>;
}

export interface WorkflowDeps {
  contacts: Pick<ContactStore, 'get' | 'getByEmail' | 'update'>;
  properties: Pick<PropertyStore, 'validate'>;
  lists: ListMembers;
  email: EmailSender;
}

/** Every method takes where it runs (`db`: the engine, or a request's transaction) first. */
export function workflowStore(engine: Engine, { contacts, properties, lists, email }: WorkflowDeps, now: () => number) {
  const { log, definition } = workflowRuns(engine, now);
  const definitionOf = (row: WorkflowRow) => JSON.parse(row.definition) as Definition;

  /** A step's id is its position in `actions`. */
  function record(row: WorkflowRow): WorkflowRecord {
    const { name, type, enabled, allowContactToTriggerMultipleTimes, actions, segmentCriteria } = definitionOf(row);
    return {
      ...(segmentCriteria ? { segmentCriteria } : {}),
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

  async function requireRow(db: Queryable, portalId: number, workflowId: number) {
    const row = await db.get(q.byId, portalId, workflowId);
    if (!row) throw notFound(`workflow ${workflowId} does not exist`);
    return row;
  }

  async function requireContactByEmail(db: Queryable, portalId: number, email: string) {
    const contact = await contacts.getByEmail(db, portalId, email);
    if (!contact) throw notFound(`no contact has the email ${email}`);
    return contact;
  }

  async function requireContact(db: Queryable, portalId: number, vid: number) {
    if (!(await contacts.get(db, portalId, vid))) throw notFound(`contact ${vid} does not exist`);
  }

  /** A step is checked when the workflow is written, so a mistake is a 4xx to its author rather
   * than a failure for every contact later. It names the portal's own lists and emails (another
   * portal's are not there to see); an EMAIL step is stored with both of its email's ids. */
  async function checkedStep(db: Queryable, portalId: number, action: Action, at: string): Promise<Action> {
    switch (action.type) {
      case 'SET_CONTACT_PROPERTY': {
        const [problem] = await properties.validate(db, portalId, [
          { property: action.propertyName, value: action.newValue },
        ]);
        if (problem)
          throw badRequest(
            `${at}.${problem.error == 'PROPERTY_DOESNT_EXIST' || problem.error == 'READ_ONLY_VALUE' ? 'propertyName' : 'newValue'}: ${problem.message}`,
          );
        return action;
      }
      case 'ADD_TO_LIST': {
        const kind = await lists.kindOf(db, portalId, action.listId);
        if (!kind) throw notFound(`${at}.listId: no list ${action.listId} in this portal`);
        if (kind == 'DYNAMIC')
          throw badRequest(
            `${at}.listId: list ${action.listId} is dynamic; its members follow its filters and cannot be added`,
          );
        return action;
      }
      case 'EMAIL': {
        const found = await email.findCampaign(db, portalId, {
          campaignId: action.emailCampaignId,
          contentId: action.emailContentId,
        });
        const field = action.emailCampaignId === undefined ? 'emailContentId' : 'emailCampaignId';
        if (!found || (action.emailContentId !== undefined && found.contentId != action.emailContentId))
          throw notFound(`${at}.${field}: no email ${action[field]} in this portal`);
        return { ...action, emailCampaignId: found.id, emailContentId: found.contentId };
      }
      case 'WEBHOOK': {
        // The URL is logged with every attempt; credentials in it would be too (the signature is
        // what proves the caller).
        const url = new URL(action.url);
        if (url.username || url.password) throw badRequest(`${at}.url: must not carry credentials (user:password@)`);
        if (action.clientId !== undefined && !(await db.get(q.app, portalId, action.clientId)))
          throw badRequest(
            `${at}.clientId: no OAuth app ${action.clientId} of this portal whose client secret could sign the calls`,
          );
        return action;
      }
      default:
        return action;
    }
  }

  /** Enrollment criteria are list filters; a form they name is one of the portal's own. */
  async function checkedCriteria(db: Queryable, portalId: number, criteria: ListFilters) {
    let normalised: ListFilters;
    try {
      normalised = normaliseFilters(criteria);
    } catch (err) {
      throw err instanceof PlatformError
        ? badRequest(err.message.replace(/^body\.filters/, 'body.segmentCriteria'))
        : err;
    }
    for (const [g, group] of normalised.entries())
      for (const [i, f] of group.entries())
        if (f.form !== undefined && !(await db.get(q.formOfPortal, portalId, f.form)))
          throw notFound(`body.segmentCriteria.${g}.${i}.form: no form ${f.form} in this portal`);
    return normalised;
  }

  async function end(db: Queryable, workflowId: number, ended: { vid: number }[], detail?: string) {
    for (const { vid } of ended) await log(db, workflowId, vid, 'UNENROLLED', null, detail);
  }

  /** Enrols a contact that has met the workflow's criteria, unless it is in the workflow already,
   * or has been and may not trigger it again. */
  async function enrolByCriteria(t: Transaction, workflowId: number, portalId: number, vid: number) {
    const latest = await t.get(q.latest, workflowId, vid);
    if (latest?.status == 'active') return;
    if (latest && !(await definition(t, workflowId)).allowContactToTriggerMultipleTimes) return;
    const at = now();
    if (await t.run(q.enroll, workflowId, portalId, vid, at, at))
      await log(t, workflowId, vid, 'ENROLLED', null, 'enrollment criteria met');
  }
  const triggers = workflowTriggers(engine, enrolByCriteria);

  return {
    list: async (db: Queryable, portalId: number) => (await db.all(q.all, portalId)).map(record),
    get: async (db: Queryable, portalId: number, workflowId: number) =>
      record(await requireRow(db, portalId, workflowId)),

    async create(db: Queryable, portalId: number, definition: Definition) {
      const actions: Action[] = [];
      for (const [i, action] of definition.actions.entries())
        actions.push(await checkedStep(db, portalId, action, `body.actions.${i}`));
      definition.actions = actions;
      if (definition.segmentCriteria?.length) {
        definition.segmentCriteria = await checkedCriteria(db, portalId, definition.segmentCriteria);
        await triggers.changed(db, portalId);
      } else delete definition.segmentCriteria;
      const text = JSON.stringify(definition);
      const t = now();
      const { id } = (await db.get(q.insert, portalId, text, t, t))!;
      return record({ id, portal_id: portalId, definition: text, created_at: t, updated_at: t });
    },

    remove: (db: Queryable, portalId: number, workflowId: number) =>
      db.tx(async (t) => {
        await requireRow(t, portalId, workflowId);
        await t.run(q.remove, now(), workflowId);
        await triggers.changed(t, portalId);
        await end(t, workflowId, await t.all(q.endAll, workflowId), 'workflow deleted');
      }),

    /** Step 0 is due at once. 412: the workflow is disabled, or the contact is in it (or has been,
     * and the workflow does not let contacts trigger it more than once). With multiple triggers
     * allowed, enrolling an active contact starts it over. */
    enroll: (db: Queryable, portalId: number, workflowId: number, email: string) =>
      db.tx(async (t) => {
        const row = await requireRow(t, portalId, workflowId);
        const { vid } = await requireContactByEmail(t, portalId, email);
        const { enabled, allowContactToTriggerMultipleTimes } = definitionOf(row);
        if (!enabled) throw preconditionFailed(`workflow ${workflowId} is disabled`);
        const latest = await t.get(q.latest, workflowId, vid);
        if (latest && !allowContactToTriggerMultipleTimes)
          throw latest.status == 'active'
            ? alreadyEnrolled(vid, workflowId)
            : preconditionFailed(
                `contact ${vid} has already been through workflow ${workflowId}, which does not allow contacts to trigger it multiple times`,
              );
        // Only a workflow that lets contacts start over ends an active enrollment here: otherwise
        // an active one found now was made by a concurrent enrollment since `latest` looked.
        if (allowContactToTriggerMultipleTimes)
          await end(t, workflowId, await t.all(q.endOne, workflowId, vid), 're-enrolled');
        const at = now();
        if (!(await t.run(q.enroll, workflowId, portalId, vid, at, at))) throw alreadyEnrolled(vid, workflowId);
        await log(t, workflowId, vid, 'ENROLLED', null);
      }),

    /** Ending an enrollment that is not active changes nothing (and is no error). */
    unenroll: (db: Queryable, portalId: number, workflowId: number, email: string) =>
      db.tx(async (t) => {
        await requireRow(t, portalId, workflowId);
        const { vid } = await requireContactByEmail(t, portalId, email);
        await end(t, workflowId, await t.all(q.endOne, workflowId, vid));
      }),

    async currentEnrollments(db: Queryable, portalId: number, vid: number) {
      await requireContact(db, portalId, vid);
      return (await db.all(q.current, portalId, vid)).map(record);
    },

    /** Newest first. */
    async pastEvents(db: Queryable, portalId: number, workflowId: number, vid: number): Promise<LogEvent[]> {
      await requireRow(db, portalId, workflowId);
      await requireContact(db, portalId, vid);
      return (await db.all(q.past, workflowId, vid)).map((e) => ({
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
    async upcomingEvents(db: Queryable, portalId: number, workflowId: number, vid: number): Promise<LogEvent[]> {
      const { actions } = definitionOf(await requireRow(db, portalId, workflowId));
      await requireContact(db, portalId, vid);
      const enrollment = await db.get(q.active, workflowId, vid);
      if (!enrollment) return [];
      // Waiting for its webhook's delivery: the step comes again with the next attempt.
      let at =
        enrollment.next_run_at == WAITING
          ? ((await db.value(q.nextAttempt, enrollment.id)) ?? now())
          : enrollment.next_run_at;
      return actions.slice(enrollment.step).map((action: Action, i) => {
        const event = { eventType: action.type, timestamp: at, workflowId, vid, stepId: enrollment.step + i };
        if (action.type == 'DELAY') at += action.delayMillis;
        return event;
      });
    },

    /** The contacts-changed listener that enrols by criteria (services). */
    enrolMatching: triggers.enrolMatching,
  };
}

export type WorkflowStore = ReturnType<typeof workflowStore>;
