/** The workflow engine: runs the due steps of active enrollments on the injected clock. Each step
 * commits in its own transaction; webhook calls happen outside any (webhook-sender.ts), so a slow
 * receiver holds no lock and no connection.
 *
 * Every process runs the engine (on PostgreSQL several share the database), and each due step
 * runs once: a process first claims a step, marking its enrollment as its own for a lease
 * (`claimed_until`), then runs it. Two processes claiming at once take different enrollments
 * (FOR UPDATE SKIP LOCKED); a process that dies mid-step leaves a lease that runs out, and another
 * process takes the step over. The claim is also the step's fence: its outcome is recorded only
 * while the enrollment is still at that step under that claim (not unenrolled meanwhile, nor taken
 * over after an overlong step).
 *
 * A webhook step queues its call (store/webhook-queue.ts) in the step's transaction and parks the
 * enrollment (next_run_at = WAITING); the sender (webhook-sender.ts) makes the attempts on a
 * timer of its own and, after the first success or the final failure, moves the enrollment on.
 * So a receiver that is down holds back its own contacts' workflows only, and what is pending
 * survives a restart in the database.
 *
 * Its SQL (the claims and the fenced updates) is in store/workflow-runs.ts. */
import type { Engine, Queryable } from '../db/engine';
import { PlatformError } from '../domain/errors';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../domain/webhook-retry';
import type { ContactRow, ContactStore } from '../store/contacts';
import { type Delivery, webhookQueue } from '../store/webhook-queue';
import { type Action, type ClaimedStep, type LogEventType, workflowRuns } from '../store/workflow-runs';
import type { EmailSender, ListMembers } from '../store/workflows';
import { uuidV7 } from '../util/uuid-v7';
import { type Settlement, webhookSender } from './webhook-sender';

type EmailAction = Extract<Action, { type: 'EMAIL' }>;
type WebhookAction = Extract<Action, { type: 'WEBHOOK' }>;
/** The steps that write in the database only. */
type LocalAction = Exclude<Action, EmailAction | WebhookAction>;

export interface EngineDeps {
  contacts: Pick<ContactStore, 'get' | 'update'>;
  lists: ListMembers;
  email: EmailSender;
  /** Runs a step's transaction (the services' write: the contact changes it makes are announced
   * in it, and dynamic lists follow them). */
  write: <T>(fn: (t: Queryable) => Promise<T>) => Promise<T>;
}

/** What a step did: the event to log, then continue (after `delayMillis`) or stop as failed. */
interface Outcome {
  eventType: LogEventType;
  detail?: string;
  delayMillis?: number;
  failed?: boolean;
}

/** How long a claimed step is its process's: far longer than a step takes, so only a process that
 * died mid-step loses its steps, to another process once the lease has passed. */
export const STEP_LEASE_MS = 60_000;
/** Enrollments claimed at once: a process does not take every due step while others stand by. */
const CLAIM_BATCH = 50;

/** The claim was lost: the enrollment moved on (unenrolled, its workflow deleted) or another
 * process took the step over; what the step did is rolled back. */
class MovedOn extends Error {}

export interface WebhookOptions {
  fetch: typeof fetch;
  policy?: RetryPolicy;
  /** In [0, 1): the jitter of retry waits. */
  random?: () => number;
  /** How often the sender looks for due attempts while the servers listen (default 1 s). */
  pollMs?: number;
  onError?: (err: unknown) => void;
}

export function workflowEngine(
  engine: Engine,
  { contacts, lists, email, write }: EngineDeps,
  now: () => number,
  webhookOptions: WebhookOptions,
) {
  const runs = workflowRuns(engine, now);
  const log = runs.log;
  const webhooks = webhookQueue(engine);
  /** Each attempt is in the workflow's log (the inspector's timeline shows it); the enrollment
   * moves on after the first success or the final failure. */
  async function settled(t: Queryable, d: Delivery, s: Settlement) {
    await log(
      t,
      d.workflow_id,
      d.vid,
      s.kind == 'delivered' ? 'WEBHOOK' : s.kind == 'retry' ? 'WEBHOOK_RETRY' : 'FAILED',
      d.step,
      s.detail,
    );
    if (s.kind != 'retry') await runs.resume(t, d.enrollment_id, d.step);
  }
  const sender = webhookSender({
    queue: webhooks,
    db: engine,
    policy: webhookOptions.policy ?? DEFAULT_RETRY_POLICY,
    fetchFn: webhookOptions.fetch,
    now,
    random: webhookOptions.random,
    write,
    settled,
    onError: webhookOptions.onError,
  });

  /** Ends the claimed step as `status`, or moves to the next step: throws MovedOn (rolling back
   * the step's transaction) when the claim was lost. */
  async function release(t: Queryable, e: ClaimedStep, next: { status: 'completed' | 'failed' } | { runAt: number }) {
    const kept = 'status' in next ? await runs.finish(t, e, next.status) : await runs.advance(t, e, next.runAt);
    if (!kept) throw new MovedOn();
  }

  async function settle(t: Queryable, e: ClaimedStep, outcome: Outcome) {
    await release(t, e, outcome.failed ? { status: 'failed' } : { runAt: now() + (outcome.delayMillis ?? 0) });
    await log(t, e.workflow_id, e.vid, outcome.eventType, e.step, outcome.detail);
  }

  /** A contact or list action. */
  async function apply(t: Queryable, e: ClaimedStep, action: LocalAction): Promise<Outcome> {
    switch (action.type) {
      case 'DELAY':
        return { eventType: 'DELAY', delayMillis: action.delayMillis, detail: `${action.delayMillis} ms` };
      case 'SET_CONTACT_PROPERTY':
        await contacts.update(t, e.portal_id, e.vid, [{ property: action.propertyName, value: action.newValue }], {
          type: 'WORKFLOW',
          id: String(e.workflow_id),
        });
        return { eventType: 'SET_CONTACT_PROPERTY', detail: `${action.propertyName}=${action.newValue}` };
      case 'ADD_TO_LIST':
        await lists.addMembers(t, e.portal_id, action.listId, [e.vid]);
        return { eventType: 'ADD_TO_LIST', detail: `list ${action.listId}` };
    }
  }

  async function sendEmail(t: Queryable, e: ClaimedStep, contact: ContactRow, action: EmailAction): Promise<Outcome> {
    // The step is written with both ids (workflows.create): the campaign is the one to send.
    const campaignId = action.emailCampaignId!;
    // A contact without an address, or one who opted out, skips the email and goes on: the
    // later steps do not depend on it.
    if (!contact.email)
      return { eventType: 'EMAIL', detail: `email ${campaignId} skipped: the contact has no email address` };
    const firstname = (JSON.parse(contact.properties) as Record<string, string | undefined>).firstname || undefined;
    const result = await email.send(t, e.portal_id, campaignId, contact.email, {
      workflowId: e.workflow_id,
      vid: e.vid,
      firstname,
    });
    return {
      eventType: 'EMAIL',
      detail: result.sent
        ? `email ${campaignId} sent to ${contact.email}`
        : `email ${campaignId} dropped: ${result.dropReason}`,
    };
  }

  /** A step that writes in the database only, in one transaction with its outcome. The action
   * runs in a savepoint, so one that fails leaves no partial writes behind. */
  const runInDatabase = (e: ClaimedStep, contact: ContactRow, action: LocalAction | EmailAction) =>
    write(async (t) => {
      let outcome: Outcome;
      try {
        outcome = await t.tx((s) => (action.type == 'EMAIL' ? sendEmail(s, e, contact, action) : apply(s, e, action)));
      } catch (err) {
        // The contact cannot take this step (invalid value, unknown or dynamic list): later steps
        // would build on it, so the enrollment stops here.
        outcome = { eventType: 'FAILED', detail: failureMessage(err), failed: true };
      }
      await settle(t, e, outcome);
    });

  /** Queues the step's call, to be sent (and retried) by the sender: the payload is fixed now,
   * so every attempt sends the same body under the same event id. */
  async function queueWebhook(e: ClaimedStep, contact: ContactRow, action: WebhookAction) {
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
      for (const [key, value] of Object.entries(payload))
        url.searchParams.set(key, typeof value == 'object' ? JSON.stringify(value) : String(value));
    await write(async (t) => {
      if (!(await runs.park(t, e))) throw new MovedOn();
      const delivery = {
        event_id: uuidV7(now()),
        portal_id: e.portal_id,
        workflow_id: e.workflow_id,
        enrollment_id: e.id,
        vid: e.vid,
        step: e.step,
        method: action.method,
        url: url.href,
        body: action.method == 'POST' ? JSON.stringify(payload) : '',
        client_id: action.clientId ?? null,
      };
      await webhooks.add(t, delivery, now());
    });
    sender.kick();
  }

  /** Runs one claimed step. */
  async function runStep(e: ClaimedStep) {
    try {
      const action = (await runs.definition(engine, e.workflow_id)).actions[e.step];
      if (!action)
        return await write(async (t) => {
          await release(t, e, { status: 'completed' });
          await log(t, e.workflow_id, e.vid, 'COMPLETED', null);
        });
      const contact = await contacts.get(engine, e.portal_id, e.vid);
      if (!contact)
        return await write((t) =>
          settle(t, e, { eventType: 'FAILED', detail: 'the contact no longer exists', failed: true }),
        );
      if (action.type != 'WEBHOOK') return await runInDatabase(e, contact, action);
      await queueWebhook(e, contact, action);
    } catch (err) {
      if (!(err instanceof MovedOn)) throw err;
    }
  }

  /** Every step that is due now, each enrollment's steps in order, claimed a batch at a time.
   * Resolves to the number of steps this process ran. */
  async function runOnce() {
    let steps = 0;
    for (;;) {
      const at = now();
      const claimed = await runs.claim(at, at + STEP_LEASE_MS, CLAIM_BATCH);
      if (!claimed.length) return steps;
      claimed.sort((a, b) => a.next_run_at - b.next_run_at || a.id - b.id);
      for (const e of claimed) {
        await runStep(e);
        steps++;
      }
    }
  }

  // Runs in this process are serialized: a timer tick and a direct call never interleave.
  let queue: Promise<unknown> = Promise.resolve();
  function serialized<T>(fn: () => Promise<T>): Promise<T> {
    const run = queue.then(fn);
    queue = run.catch(() => {});
    return run;
  }

  /** Every step and webhook attempt due now, until none is (a delivered webhook makes its next
   * step due): tests call it on a moved clock. Resolves to the number of steps run. */
  const runDue = () =>
    serialized(async () => {
      let steps = 0;
      for (let round = 0; round < 1000; round++) {
        steps += await runOnce();
        if (!(await sender.runDue())) break;
      }
      return steps;
    });

  let timer: NodeJS.Timeout | undefined;
  let ticking: Promise<unknown> | undefined;
  return {
    runDue,
    /** Webhook deliveries pending in the database (all processes'). */
    pendingWebhooks: () => webhooks.pending(engine),
    /** Runs due steps every `intervalMs`, and webhook attempts on the sender's timer; the timers
     * are unref'd so they never keep the process alive. A tick is skipped while the previous run
     * is still going. */
    start(intervalMs = 1000, onError: (err: unknown) => void = console.error) {
      if (timer) return;
      timer = setInterval(() => {
        ticking ??= serialized(runOnce)
          .catch(onError)
          .finally(() => (ticking = undefined));
      }, intervalMs);
      timer.unref();
      sender.start(webhookOptions.pollMs ?? intervalMs);
    },
    /** Stops the timers; resolves once a run and the webhook attempts in progress have finished
     * (close the database after). */
    async stop() {
      clearInterval(timer);
      timer = undefined;
      await sender.stop();
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
