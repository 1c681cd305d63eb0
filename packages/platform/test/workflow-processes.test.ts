/** The workflow engine in several processes on one database: each due step runs once, and each
 * webhook attempt is made once. On
 * PostgreSQL each "process" is an engine of its own (its own pool of connections, as two platform
 * processes have); on SQLite, whose database one process serves, the two run on one engine and
 * the same claims keep them apart. Webhooks go to a local HTTP server that counts the calls. */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, sql } from '../src/db/engine';
import { postgresEngine } from '../src/db/engine-postgres';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { openPostgres } from '../src/db/open-postgres';
import { DELIVERY_LEASE_MS } from '../src/jobs/webhook-sender';
import { workflowsWithEngine } from '../src/jobs/workflows';
import { contentEngine } from '../src/store/content/engine';
import { contactStore, type ContactsChanged } from '../src/store/contacts';
import { emailStore } from '../src/store/email';
import { listStore } from '../src/store/lists';
import { createPortal, issuePortalCredentials } from '../src/store/portals';
import { propertyStore } from '../src/store/properties';
import { socialStore } from '../src/store/social';
import { havePostgres, PG_URL, pgSchema } from './postgres';

const PORTAL = 7;
const HOUR = 3_600_000;
const sorted = (vids: number[]) => [...vids].sort((x, y) => x - y);

const schema = await pgSchema('workflow_processes');
/** Two processes' engines on one database. */
const engines: [string, boolean, () => Promise<[Engine, Engine]>][] = [
  [
    'sqlite',
    true,
    async () => {
      const one = sqliteEngine(openDatabase(':memory:'), { groupCommit: true });
      return [one, one];
    },
  ],
  ['postgres', havePostgres, async () => [await openPostgres(PG_URL, { schema }), postgresEngine(PG_URL, { schema })]],
];

/** The webhook receiver: every call it gets, by path (each engine's under its name). The first
 * call to a path with /held/ waits for the test to answer `held` (a process stuck mid-step);
 * later calls are answered at once. */
let hooks: Server;
let hookUrl: string;
const calls: { path: string; vid: number }[] = [];
let held: ServerResponse | undefined;
let heldArrived: () => void = () => {};

beforeAll(async () => {
  hooks = createServer((req: IncomingMessage, res: ServerResponse) => {
    let text = '';
    req.on('data', (chunk) => (text += chunk));
    req.on('end', () => {
      const path = new URL(req.url!, 'http://x').pathname;
      const first = !calls.some((c) => c.path == path);
      calls.push({ path, vid: JSON.parse(text).vid });
      if (path.includes('/held/') && first) {
        held = res;
        heldArrived();
        return;
      }
      // A little later, as a real receiver: the other process claims while this one waits.
      setTimeout(() => res.end('ok'), 5);
    });
  });
  await new Promise<void>((resolve) => hooks.listen(0, '127.0.0.1', resolve));
  hookUrl = `http://127.0.0.1:${(hooks.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => (hooks.closeAllConnections(), hooks.close(resolve))));

for (const [name, available, open] of engines) {
  describe.skipIf(!available)(`workflow steps on ${name}, two processes`, () => {
    const clock = { now: 1_000_000 };
    const now = () => clock.now;
    let a: ReturnType<typeof processOn>;
    let b: ReturnType<typeof processOn>;

    /** What one platform process has: its stores on its engine, on the shared clock. */
    function processOn(engine: Engine) {
      const listeners: ContactsChanged[] = [];
      const properties = propertyStore(engine, now);
      const contacts = contactStore(engine, properties, now, async (db, portalId, changed) => {
        for (const fn of listeners) await fn(db, portalId, changed);
      });
      const lists = listStore(engine, contacts, now, (fn) => listeners.push(fn));
      const email = emailStore(engine, now);
      const workflows = workflowsWithEngine(
        engine,
        { contacts, properties, lists, email, write: (fn) => engine.tx(fn) },
        now,
        { fetch },
      );
      return { engine, contacts, workflows };
    }

    beforeAll(async () => {
      const [first, second] = await open();
      a = processOn(first);
      b = processOn(second);
      await createPortal(
        first,
        { content: contentEngine(first, now), social: socialStore(first, now) },
        { id: PORTAL, name: 'Seven', tier: 'enterprise', now: clock.now },
      );
      // Its OAuth app's client secret signs the webhooks.
      await issuePortalCredentials(first, PORTAL, clock.now);
    });
    afterAll(async () => {
      await a?.engine.close();
      if (b?.engine != a?.engine) await b?.engine.close();
    });

    /** A workflow with `actions`, and `count` contacts enrolled in it (by process a). */
    async function enrolled(label: string, count: number, actions: unknown[]) {
      const { id } = await a.workflows.create(a.engine, PORTAL, {
        name: label,
        type: 'DRIP_DELAY',
        enabled: true,
        allowContactToTriggerMultipleTimes: false,
        actions: actions as never,
      });
      const vids: number[] = [];
      for (let i = 0; i < count; i++) {
        const email = `${label}-${i}@example.com`;
        vids.push(await a.contacts.create(a.engine, PORTAL, [{ property: 'email', value: email }]));
        await a.workflows.enroll(a.engine, PORTAL, id, email);
      }
      return { id, vids };
    }

    const eventsOf = (workflowId: number) =>
      a.engine.all(
        sql<[number], { vid: number; event_type: string; step_id: number | null }>(
          'SELECT vid, event_type, step_id FROM workflow_log WHERE workflow_id = ? ORDER BY seq',
        ),
        workflowId,
      );

    it('runs a delay, then a webhook, once per enrollment while both processes run the due steps at once', async () => {
      // More enrollments than one claim takes, so both processes get some.
      const { id, vids } = await enrolled('both', 120, [
        { type: 'DELAY', delayMillis: HOUR },
        { type: 'WEBHOOK', url: `${hookUrl}/${name}/both`, method: 'POST' },
      ]);
      const [ranA, ranB] = await Promise.all([a.workflows.runDue(), b.workflows.runDue()]);
      expect(ranA + ranB).toBe(120);
      clock.now += HOUR;
      const [hookedA, hookedB] = await Promise.all([a.workflows.runDue(), b.workflows.runDue()]);
      // Each enrollment: its webhook, then its completion.
      expect(hookedA + hookedB).toBe(240);
      if (name == 'postgres')
        expect(hookedA > 0 && hookedB > 0, `process a ran ${hookedA} steps, b ${hookedB}`).toBe(true);
      const called = calls.filter((c) => c.path == `/${name}/both`).map((c) => c.vid);
      expect(sorted(called)).toEqual(sorted(vids));

      const events = await eventsOf(id);
      for (const type of ['ENROLLED', 'DELAY', 'WEBHOOK', 'COMPLETED'])
        expect(sorted(events.filter((e) => e.event_type == type).map((e) => e.vid)), type).toEqual(sorted(vids));
      expect(events).toHaveLength(4 * 120);
      expect(await Promise.all([a.workflows.runDue(), b.workflows.runDue()])).toEqual([0, 0]);
    });

    it('leaves a webhook attempt in flight to its process, and gives it to another once the lease has passed', async () => {
      const { id, vids } = await enrolled('stuck', 1, [
        { type: 'WEBHOOK', url: `${hookUrl}/${name}/held/stuck`, method: 'POST' },
      ]);
      const arrived = new Promise<void>((resolve) => (heldArrived = resolve));
      const stuck = a.workflows.runDue();
      await arrived;
      // Process a is waiting for the receiver: its claim holds, and b finds nothing to do.
      expect(await b.workflows.runDue()).toBe(0);
      clock.now += DELIVERY_LEASE_MS - 1;
      expect(await b.workflows.runDue()).toBe(0);
      // As if a had died: once the lease has passed, b makes the attempt again and runs the next
      // step (the completion).
      clock.now += 1;
      expect(await b.workflows.runDue()).toBe(1);
      expect((await eventsOf(id)).map((e) => e.event_type)).toEqual(['ENROLLED', 'WEBHOOK', 'COMPLETED']);
      // a's answer arrives late: the delivery is b's now, so a records nothing.
      held!.end('ok');
      expect(await stuck).toBe(1);
      expect((await eventsOf(id)).map((e) => e.event_type)).toEqual(['ENROLLED', 'WEBHOOK', 'COMPLETED']);
      // The receiver was called twice for the one step: a process that stops answering is
      // indistinguishable from a dead one.
      expect(calls.filter((c) => c.path == `/${name}/held/stuck`).map((c) => c.vid)).toEqual([vids[0], vids[0]]);
    });

    it('takes a contact unenrolled while its webhook was being called no further (the call made is recorded)', async () => {
      const { id } = await enrolled('leaving', 1, [
        { type: 'WEBHOOK', url: `${hookUrl}/${name}/held/leaving`, method: 'POST' },
        { type: 'SET_CONTACT_PROPERTY', propertyName: 'lastname', newValue: 'Stayed' },
      ]);
      const arrived = new Promise<void>((resolve) => (heldArrived = resolve));
      const running = a.workflows.runDue();
      await arrived;
      await b.workflows.unenroll(b.engine, PORTAL, id, 'leaving-0@example.com');
      held!.end('ok');
      expect(await running).toBe(1);
      expect((await eventsOf(id)).map((e) => e.event_type)).toEqual(['ENROLLED', 'UNENROLLED', 'WEBHOOK']);
      expect(await Promise.all([a.workflows.runDue(), b.workflows.runDue()])).toEqual([0, 0]);
    });

    it('enrolls a contact once when both processes enroll it at once', async () => {
      const { id } = await a.workflows.create(a.engine, PORTAL, {
        name: 'once',
        type: 'DRIP_DELAY',
        enabled: true,
        allowContactToTriggerMultipleTimes: false,
        actions: [{ type: 'DELAY', delayMillis: HOUR }],
      });
      const emails = Array.from({ length: 20 }, (_, i) => `once-${i}@example.com`);
      const vids: number[] = [];
      for (const email of emails)
        vids.push(await a.contacts.create(a.engine, PORTAL, [{ property: 'email', value: email }]));
      const races = await Promise.all(
        emails.map((email) =>
          Promise.allSettled([
            a.workflows.enroll(a.engine, PORTAL, id, email),
            b.workflows.enroll(b.engine, PORTAL, id, email),
          ]),
        ),
      );
      for (const [i, results] of races.entries()) {
        expect(results.map((r) => r.status).sort(), emails[i]).toEqual(['fulfilled', 'rejected']);
        const refused = results.find((r) => r.status == 'rejected') as PromiseRejectedResult;
        expect(refused.reason).toMatchObject({
          kind: 'precondition-failed',
          message: `contact ${vids[i]} is already enrolled in workflow ${id}`,
        });
      }
      // One enrollment each, never ended and started over by the other process.
      expect(sorted((await eventsOf(id)).map((e) => e.vid))).toEqual(sorted(vids));
      expect(new Set((await eventsOf(id)).map((e) => e.event_type))).toEqual(new Set(['ENROLLED']));
    });
  });
}
