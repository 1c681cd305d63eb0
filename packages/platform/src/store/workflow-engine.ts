/** The workflow engine: runs the due steps of active enrollments on the injected clock. Each step
 * commits in its own transaction; webhook calls happen between transactions, never inside one, so
 * a slow receiver does not hold the database's write lock. */
import type { schemas } from '@svc/api';
import type { z } from 'zod';
import type { Queryable } from '../db/engine';
import { type Db, transaction } from '../db/open';
import { PlatformError } from '../domain/errors';
import type { ContactRow, ContactStore } from './contacts';

export type Action = z.output<typeof schemas.workflowAction>;
type EmailAction = Extract<Action, { type: 'EMAIL' }>;
/** The steps run by the stores not yet on the engine (db/engine.ts), synchronously. */
type LocalAction = Exclude<Action, { type: 'WEBHOOK' | 'EMAIL' }>;
export type LogEventType = (typeof schemas.LOG_EVENT_TYPES)[number];
export type Log = (workflowId: number, vid: number, eventType: LogEventType, stepId: number | null, detail?: string) => void;

/** The part of the list store the engine uses (ADD_TO_LIST), and workflows to check a step's list. */
export interface ListMembers {
  addMembers(portalId: number, listId: number, vids: number[]): unknown;
  /** Whether the portal has this list, and of which kind (undefined: no such list). */
  kindOf(portalId: number, listId: number): 'STATIC' | 'DYNAMIC' | undefined;
}

/** The part of the email store the engine uses (EMAIL), and workflows to check a step's email. */
export interface EmailSender {
  findCampaign(db: Queryable, portalId: number, by: { campaignId?: number; contentId?: number }): Promise<{ id: number; contentId: number } | undefined>;
  send(db: Queryable, portalId: number, campaignId: number, recipient: string): Promise<{ sent: true } | { sent: false; dropReason: string }>;
}

export interface EngineDeps {
  contacts: ContactStore;
  lists: ListMembers;
  email: EmailSender;
  log: Log;
  /** The actions of a workflow, by id (deleted ones too: their enrollments are already ended). */
  actionsOf: (workflowId: number) => Action[];
  /** Runs a step in a transaction of the engine (an EMAIL step: the email store is on it). */
  tx: <T>(fn: (t: Queryable) => Promise<T>) => Promise<T>;
}

export interface EnrollmentRow {
  id: number;
  workflow_id: number;
  portal_id: number;
  vid: number;
  step: number;
  next_run_at: number;
}

/** What a step did: the event to log, then continue (after `delayMillis`) or stop as failed. */
interface Outcome {
  eventType: LogEventType;
  detail?: string;
  delayMillis?: number;
  failed?: boolean;
}

const WEBHOOK_TIMEOUT_MS = 5000;

export function workflowEngine(db: Db, { contacts, lists, email, log, actionsOf, tx }: EngineDeps, now: () => number, fetchFn: typeof fetch) {
  const q = {
    due: db.prepare<[number], { id: number }>(
      "SELECT id FROM enrollments WHERE status = 'active' AND next_run_at <= ? ORDER BY next_run_at, id",
    ),
    dueById: db.prepare<[number, number], EnrollmentRow>(
      "SELECT id, workflow_id, portal_id, vid, step, next_run_at FROM enrollments WHERE id = ? AND status = 'active' AND next_run_at <= ?",
    ),
    atStep: db.prepare<[number, number], { id: number }>("SELECT id FROM enrollments WHERE id = ? AND step = ? AND status = 'active'"),
    advance: db.prepare<[number, number]>('UPDATE enrollments SET step = step + 1, next_run_at = ? WHERE id = ?'),
    finish: db.prepare<[string, number]>('UPDATE enrollments SET status = ? WHERE id = ?'),
  };

  const settle = (e: EnrollmentRow, outcome: Outcome) => {
    log(e.workflow_id, e.vid, outcome.eventType, e.step, outcome.detail);
    if (outcome.failed) q.finish.run('failed', e.id);
    else q.advance.run(now() + (outcome.delayMillis ?? 0), e.id);
  };

  /** A contact or list action, in a savepoint so a failure leaves no partial writes behind. */
  const apply = transaction(db, (e: EnrollmentRow, action: LocalAction): Outcome => {
    switch (action.type) {
      case 'DELAY':
        return { eventType: 'DELAY', delayMillis: action.delayMillis, detail: `${action.delayMillis} ms` };
      case 'SET_CONTACT_PROPERTY':
        contacts.update(e.portal_id, e.vid, [{ property: action.propertyName, value: action.newValue }], {
          type: 'WORKFLOW',
          id: String(e.workflow_id),
        });
        return { eventType: 'SET_CONTACT_PROPERTY', detail: `${action.propertyName}=${action.newValue}` };
      case 'ADD_TO_LIST':
        lists.addMembers(e.portal_id, action.listId, [e.vid]);
        return { eventType: 'ADD_TO_LIST', detail: `list ${action.listId}` };
    }
  });

  /** An EMAIL step, in a savepoint of `t` like `apply`. */
  async function sendEmail(t: Queryable, e: EnrollmentRow, action: EmailAction): Promise<Outcome> {
    // The step is written with both ids (workflows.create): the campaign is the one to send.
    const campaignId = action.emailCampaignId!;
    // A contact without an address, or one who opted out, skips the email and goes on: the
    // later steps do not depend on it.
    const address = contacts.get(e.portal_id, e.vid)?.email;
    if (!address) return { eventType: 'EMAIL', detail: `email ${campaignId} skipped: the contact has no email address` };
    const result = await t.tx((s) => email.send(s, e.portal_id, campaignId, address));
    return { eventType: 'EMAIL', detail: result.sent ? `email ${campaignId} sent to ${address}` : `email ${campaignId} dropped: ${result.dropReason}` };
  }

  const runEmailStep = (e: EnrollmentRow, action: EmailAction) =>
    tx(async (t) => {
      let outcome: Outcome;
      try {
        outcome = await sendEmail(t, e, action);
      } catch (err) {
        outcome = { eventType: 'FAILED', detail: failureMessage(err), failed: true };
      }
      settle(e, outcome);
    });

  const runLocalStep = transaction(db, (e: EnrollmentRow, action: LocalAction) => {
    let outcome: Outcome;
    try {
      outcome = apply(e, action);
    } catch (err) {
      // The contact cannot take this step (invalid value, unknown or dynamic list): later steps
      // would build on it, so the enrollment stops here.
      outcome = { eventType: 'FAILED', detail: failureMessage(err), failed: true };
    }
    settle(e, outcome);
  });

  const complete = transaction(db, (e: EnrollmentRow) => {
    log(e.workflow_id, e.vid, 'COMPLETED', null);
    q.finish.run('completed', e.id);
  });

  const fail = transaction(db, (e: EnrollmentRow, detail: string) => settle(e, { eventType: 'FAILED', detail, failed: true }));

  /** Records the call unless the enrollment moved on meanwhile (unenrolled, workflow deleted). */
  const settleWebhook = transaction(db, (e: EnrollmentRow, outcome: Outcome) => {
    if (q.atStep.get(e.id, e.step)) settle(e, outcome);
  });

  /** A webhook only tells an outside system; it changes nothing the later steps depend on. So its
   * failure is logged (FAILED, with this step's id) and the contact carries on with the workflow,
   * rather than one unreachable receiver stalling every enrollment. */
  const webhookFailed = (detail: string): Outcome => ({ eventType: 'FAILED', detail });

  async function callWebhook(e: EnrollmentRow, contact: ContactRow, action: Extract<Action, { type: 'WEBHOOK' }>): Promise<Outcome> {
    const payload = {
      workflowId: e.workflow_id,
      vid: e.vid,
      portalId: e.portal_id,
      email: contact.email,
      properties: JSON.parse(contact.properties) as Record<string, string>,
      timestamp: now(),
    };
    const url = new URL(action.url);
    // A GET cannot carry a body: the same fields go in the query string.
    if (action.method == 'GET')
      for (const [key, value] of Object.entries(payload)) url.searchParams.set(key, typeof value == 'object' ? JSON.stringify(value) : String(value));
    try {
      const res = await fetchFn(url, {
        method: action.method,
        headers: action.method == 'POST' ? { 'content-type': 'application/json' } : {},
        body: action.method == 'POST' ? JSON.stringify(payload) : undefined,
        signal: AbortSignal.timeout(WEBHOOK_TIMEOUT_MS),
      });
      await res.body?.cancel(); // releases the connection: the answer's body is not used
      if (!res.ok) return webhookFailed(`${action.method} ${action.url} answered ${res.status}`);
      return { eventType: 'WEBHOOK', detail: `${action.method} ${action.url} answered ${res.status}` };
    } catch (err) {
      return webhookFailed(`${action.method} ${action.url} failed: ${(err as Error).message}`);
    }
  }

  async function runStep(e: EnrollmentRow) {
    const action = actionsOf(e.workflow_id)[e.step];
    if (!action) return complete(e);
    const contact = contacts.get(e.portal_id, e.vid);
    if (!contact) return fail(e, 'the contact no longer exists');
    if (action.type == 'EMAIL') return runEmailStep(e, action);
    if (action.type != 'WEBHOOK') return runLocalStep(e, action);
    settleWebhook(e, await callWebhook(e, contact, action));
  }

  /** Every step that is due now, each enrollment's steps in order. Resolves to the number of
   * steps run. Runs are serialized: a timer tick and a direct call never interleave. */
  async function runOnce() {
    let steps = 0;
    for (const { id } of q.due.all(now())) {
      let e: EnrollmentRow | undefined;
      while ((e = q.dueById.get(id, now()))) {
        await runStep(e);
        steps++;
      }
    }
    return steps;
  }

  let queue: Promise<unknown> = Promise.resolve();
  function runDue(): Promise<number> {
    const run = queue.then(runOnce);
    queue = run.catch(() => {});
    return run;
  }

  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<unknown> | undefined;
  return {
    runDue,
    /** Runs due steps every `intervalMs`; the timer is unref'd so it never keeps the process alive.
     * A tick is skipped while the previous run (e.g. a slow webhook) is still going. */
    start(intervalMs = 1000, onError: (err: unknown) => void = console.error) {
      if (timer) return;
      timer = setInterval(() => {
        ticking ??= runDue()
          .catch(onError)
          .finally(() => (ticking = undefined));
      }, intervalMs);
      timer.unref();
    },
    /** Stops the timer; resolves once a run in progress has finished (close the database after). */
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await queue;
    },
  };
}

function failureMessage(err: unknown) {
  if (err instanceof PlatformError) {
    const results = err.extra.validationResults as { message: string }[] | undefined;
    return results?.length ? results.map((r) => r.message).join('; ') : err.message;
  }
  return (err as Error).message;
}
