/** The wiring: the one place the platform's stores, services and jobs are built, on one database
 * and one clock, each handed the others it uses. The servers (app.ts) take what it returns and
 * start and stop the jobs' timers; handlers reach everything through it (the `Services` type). */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Engine, Queryable, Transaction } from '../db/engine';
import { forgetAll } from '../db/shared-cache';
import { txContext } from '../db/tx-context';
import { scheduler } from '../jobs/scheduler';
import { socialPublishing } from '../jobs/social-publishing';
import { workflowsWithEngine } from '../jobs/workflows';
import { blogV1Store } from '../store/blog-v1';
import { contactStore, type ChangedContact, type ContactsChanged } from '../store/contacts';
import { contentEngine } from '../store/content/engine';
import { blobStore } from '../store/files/blobs';
import { fileStore } from '../store/files/files';
import { keywordStore } from '../store/keywords';
import { prospectStore, type IpOrganization } from '../store/prospects';
import { credentialStore } from '../store/credentials';
import { inspectorQueries } from '../store/inspector';
import { oauthStore } from '../store/oauth';
import { addMissingDefaultProperties, portalStore } from '../store/portals';
import { settingStore } from '../store/settings';
import { socialStore } from '../store/social';
import { seedSite } from '../store/content/seed';
import { emailStore, type PreferenceLinks } from '../store/email';
import { outboxStore } from '../store/outbox';
import { eventOccurrenceStore } from '../store/event-occurrences';
import { formStore } from '../store/forms';
import { listStore } from '../store/lists';
import { propertyStore } from '../store/properties';
import { dashboardStore } from '../store/dashboard';
import { METRICS, rollupStore } from '../store/rollups';
import { dashboard } from './dashboard';
import { sessionStore } from '../store/sessions';
import { trackingStore } from '../store/tracking';
import { visitSessions } from './sessions';
import { trackingIntake } from './tracking-intake';
import { writesInBulk } from './bulk-queue';
import { intakeBulk } from './intake-bulk';
import { visitorLinks } from './visitor-links';
import { tokenOutbox } from './token-outbox';
import { formSubmissions } from './form-submissions';
import { propertyRemoval } from './property-removal';
import { DEFAULT_RETRY_POLICY, type RetryPolicy } from '../domain/webhook-retry';

/** Workflow webhooks: the retry policy (domain/webhook-retry.ts; tests shorten it), how often
 * due attempts are looked for, and the jitter's source. */
export type WebhookSettings = Partial<RetryPolicy> & { pollMs?: number; random?: () => number };

export interface ServiceOptions {
  /** Used by workflow WEBHOOK actions (tests pass their own). */
  fetch?: typeof fetch;
  webhooks?: WebhookSettings;
  /** Where background failures go (a webhook sender that cannot reach the database). */
  onError?: (err: unknown) => void;
  /** The IP → organisation mapping of prospects (default: a small sample, store/prospects.ts). */
  prospects?: IpOrganization[];
  /** Where uploaded files' bytes go; default: a throwaway directory (tests). */
  filesDir?: string;
  /** OAuth access token lifetime and refresh token rotation (store/oauth.ts). */
  oauth?: { tokenLifetimeSeconds: number; rotateRefreshTokens: boolean };
  /** PostgreSQL: the collector's writes wait for the database's disk flush too (see
   * tracking.commitUnflushed). */
  syncTrackingCommits?: boolean;
  /** The preference links of the emails workflows send (store/email/send.ts); none without. */
  preferenceLinks?: PreferenceLinks;
  /** Emails the mail catcher keeps per portal (store/outbox.ts; default 500). */
  outboxKeep?: number;
  /** Keep the OAuth tokens issued in memory, for the admin API's outbox (off by default). */
  recordTokens?: boolean;
}

/** Every store runs on `engine`, SQLite or PostgreSQL. */
export function createServices(engine: Engine, now: () => number, options: ServiceOptions = {}) {
  const portals = portalStore();
  const credentials = credentialStore();
  const tokens = options.recordTokens ? tokenOutbox() : undefined;
  const oauth = oauthStore(
    now,
    options.oauth ?? { tokenLifetimeSeconds: 1800, rotateRefreshTokens: false },
    tokens && ((t) => tokens.add(t)),
  );
  const properties = propertyStore(engine, now);
  /** The dashboard's counters: a request's additions are stored once, at the end of its write. */
  const rollups = rollupStore(engine);
  /** Contact changes (create, update, delete, batch): dynamic lists re-evaluate on them, in the
   * writing transaction. */
  const contactListeners: ContactsChanged[] = [];
  const onContactsChanged = (fn: ContactsChanged) => contactListeners.push(fn);
  const notify = async (db: Transaction, portalId: number, changed: ChangedContact[]) => {
    for (const fn of contactListeners) await fn(db, portalId, changed);
  };
  /** In a request's write, changes are gathered and announced once at its end (a collector batch
   * or a form submission touches the same contact several times); a contact's last change is the
   * one announced. */
  const gathering = txContext<Map<number, Map<number, ChangedContact>>>();
  const changed: ContactsChanged = (db, portalId, contacts) => {
    const gathered = gathering.of(db);
    if (!gathered) return notify(db, portalId, contacts);
    const byVid = gathered.get(portalId) ?? gathered.set(portalId, new Map()).get(portalId)!;
    // Changed again in the same request: still new if it was made by it, and what changed is
    // what either write changed.
    for (const c of contacts) {
      const before = byVid.get(c.vid);
      byVid.set(
        c.vid,
        before
          ? {
              ...c,
              isNew: before.isNew || c.isNew,
              names: before.names && c.names && [...before.names, ...c.names],
              submitted: c.submitted ?? before.submitted,
            }
          : c,
      );
    }
  };
  /** One request's writes: a transaction (on SQLite a savepoint in the group commit), its contact
   * changes announced once; resolves once they are durable. Its rollups are kept last, after
   * everything that could still fail and roll it back (see rollups.batch). */
  const write = <T>(fn: (t: Queryable) => T): Promise<Awaited<T>> =>
    engine.tx((t) =>
      rollups.batch(t, async (r): Promise<Awaited<T>> => {
        const gathered = new Map<number, Map<number, ChangedContact>>();
        const result = await fn(gathering.bind(r, gathered));
        for (const [portalId, byVid] of gathered) await notify(r, portalId, [...byVid.values()]);
        return result;
      }),
    );
  const contacts = contactStore(engine, properties, now, changed, rollups);
  const lists = listStore(engine, contacts, now, onContactsChanged);
  const forms = formStore(engine, contacts, properties, now, rollups);
  const outbox = outboxStore(options.outboxKeep);
  const email = emailStore(engine, now, { outbox, preferenceLinks: options.preferenceLinks });
  const { pollMs, random, ...policy } = options.webhooks ?? {};
  const workflows = workflowsWithEngine(engine, { contacts, properties, lists, email, write }, now, {
    fetch: options.fetch ?? fetch,
    policy: { ...DEFAULT_RETRY_POLICY, ...policy },
    pollMs,
    random,
    onError: options.onError,
  });
  // After the lists' re-check (registered by listStore): criteria see the contact as written.
  onContactsChanged(workflows.enrolMatching);
  const tracking = trackingStore(engine, contacts, now);
  const occurrences = eventOccurrenceStore();
  const settings = settingStore(engine, now);
  const sessions = visitSessions(sessionStore(engine), settings, rollups);
  const visitors = visitorLinks(contacts, tracking, sessions);
  const submissions = formSubmissions(forms, visitors, email, write, now);
  const removeProperty = propertyRemoval(properties, contacts, lists);
  const content = contentEngine(engine, now);
  const blogV1 = blogV1Store(content);
  const keywords = keywordStore(engine, now);
  const inspector = inspectorQueries(engine);
  const dashboardPanels = dashboard(dashboardStore(engine), now, rollups.fold);
  const social = socialStore(engine, now);
  socialPublishing(content, social);
  const prospects = prospectStore(engine, options.prospects);
  const intake = trackingIntake({
    now,
    portals,
    tracking,
    contacts,
    properties,
    links: visitors,
    sessions,
    rollups,
    onPageView: async (t, e, ip) => {
      const country = prospects.countryOf(ip);
      if (country) await rollups.add(t, e.portalId, METRICS.country, e.timestamp, country);
      return prospects.pageView(t, e.portalId, ip, e.utk ?? '', e.url, e.timestamp);
    },
  });
  // One bulk at a time, on either engine: the batches that come meanwhile make the next one
  // bigger, which is what saves (on PostgreSQL, more at once wrote fewer events: docs/performance).
  const bulkWrite: typeof write = options.syncTrackingCommits
    ? write
    : (fn) => write((t) => tracking.commitUnflushed(t).then(() => fn(t)));
  const bulk = intakeBulk(bulkWrite, intake, { inFlight: 1 });
  /** Form submissions' writes: on PostgreSQL in bulk (bulk-queue.ts), the submissions that arrive
   * together sharing a transaction's cost (the database's CPU per submission); SQLite's group
   * commit shares one already. Two bulks at once: a bulk's submissions run one after another, a
   * chain of round trips, and with one the machine idled a third of the time. */
  const submissionWrite = engine.kind == 'postgres' ? writesInBulk(write, { inFlight: 2, maxWrites: 20 }) : write;
  const blobs = blobStore(options.filesDir ?? mkdtempSync(join(tmpdir(), 'svc-files-')));
  const files = fileStore(engine, content, blobs, now);
  /** Portals made before part 2 get their site (blog, domain, layout, site map) and social
   * channels on the first start after it. One process at a time: another starting meanwhile goes
   * on without (it only fills what those portals lack). */
  const seedOlderPortals = () =>
    engine.exclusive('seed-older-portals', () =>
      engine.tx(async (t) => {
        for (const id of await portals.ids(t)) {
          await seedSite(t, content, id, now());
          await social.seedChannels(t, id, now());
          if (await addMissingDefaultProperties(t, id, now()))
            for (const type of ['contacts', 'deals'] as const) await properties.changed(t, id, type);
        }
      }),
    );
  const jobs = scheduler(engine, write, [
    { name: 'publish', run: (t) => content.publishDue(t) },
    { name: 'broadcasts', run: (t) => social.publishDue(t) },
    // In a transaction of its own: the deltas others committed meanwhile, not the run's snapshot.
    { name: 'rollups', run: () => rollups.fold() },
  ]);
  /** Every per-process cache drops what it holds, in the transaction `t` that replaces the whole
   * state (a snapshot's import, which calls it before and after its writes: the portals' tiers
   * are forgotten by id, the old portals' and the new ones'). */
  const forgetCaches = async (t: Queryable) => {
    await forgetAll(engine, t);
    for (const id of await portals.ids(t)) portals.forget(id);
  };
  return {
    now,
    forgetCaches,
    portals,
    credentials,
    oauth,
    /** The OAuth tokens issued, when recordTokens asked for them. */
    tokens,
    inspector,
    outbox,
    properties,
    removeProperty,
    contacts,
    visitors,
    lists,
    forms,
    submissions,
    email,
    workflows,
    tracking,
    occurrences,
    intake,
    intakeBulk: bulk,
    content,
    blogV1,
    files,
    filesRoot: blobs.root,
    keywords,
    settings,
    social,
    prospects,
    scheduler: jobs,
    onContactsChanged,
    write,
    submissionWrite,
    engine,
    seedOlderPortals,
    rollups,
    dashboard: dashboardPanels,
  };
}

export type Services = ReturnType<typeof createServices>;
