/** The inspector page's reads (src/inspector serves them): straight SQL over the platform's tables, shaped for people to look at
 * (not the legacy API shapes). Read-only. */
import { type Engine, type Queryable, sql } from '../db/engine';
import { ownProperties } from './event-occurrences';

export interface TimelineItem {
  at: number;
  kind: 'page view' | 'event' | 'form submission' | 'subscription change' | 'workflow' | 'list';
  title: string;
  detail?: string;
  /** A custom event's own properties (what the tracker's trackEvent or an events API call sent). */
  properties?: Record<string, string>;
}

interface ContactRow {
  vid: number;
  email: string | null;
  properties: string;
  created_at: number;
  updated_at: number;
}

const json = <T>(text: string | null): T => (text ? (JSON.parse(text) as T) : ({} as T));
const name = (p: Record<string, string>) => [p.firstname, p.lastname].filter(Boolean).join(' ');

/** Every method takes where it runs (`db`: the engine) first. */
export function inspectorQueries(engine: Engine) {
  const { ilike, jsonText } = engine.dialect;
  const q = {
    portals: sql<[], { id: number; name: string; tier: string }>('SELECT id, name, tier FROM portals ORDER BY id'),
    // The search matches without case, in the email or anywhere in the properties' JSON text.
    contacts: sql<[number, string, string, string, number, number], ContactRow>(
      `SELECT vid, email, properties, created_at, updated_at FROM contacts
       WHERE portal_id = ? AND deleted = 0 AND (? = '' OR ${ilike('email', '?')} ESCAPE '\\' OR ${ilike('properties', '?')} ESCAPE '\\')
       ORDER BY updated_at DESC, vid DESC LIMIT ? OFFSET ?`,
    ),
    contact: sql<[number, number], ContactRow>(
      'SELECT vid, email, properties, created_at, updated_at FROM contacts WHERE portal_id = ? AND vid = ? AND deleted = 0',
    ),
    utks: sql<[number], { utk: string; linked_at: number }>(
      'SELECT utk, linked_at FROM utks WHERE vid = ? ORDER BY linked_at',
    ),
    tracking: sql<
      [number],
      {
        kind: number;
        timestamp: number;
        url: string | null;
        title: string | null;
        event_name: string | null;
        value: number | null;
        source: string;
        data: string;
      }
    >(
      'SELECT kind, timestamp, url, title, event_name, value, source, data FROM tracking_events WHERE vid = ? ORDER BY timestamp DESC LIMIT 200',
    ),
    submissions: sql<
      [number],
      { timestamp: number; page_url: string | null; title: string | null; values_json: string }
    >(
      `SELECT s.timestamp, s.page_url, ${jsonText('f.definition', '$.name')} AS title, s.values_json
       FROM form_submissions s LEFT JOIN forms f ON f.guid = s.form_guid WHERE s.vid = ? ORDER BY s.timestamp DESC LIMIT 100`,
    ),
    statusChanges: sql<[number, string], { created: number; data: string }>(
      "SELECT created, data FROM email_events WHERE portal_id = ? AND recipient = ? AND type = 'STATUSCHANGE' ORDER BY seq DESC LIMIT 100",
    ),
    subscriptionNames: sql<[number], { id: number; name: string }>(
      'SELECT id, name FROM subscription_types WHERE portal_id = ?',
    ),
    workflowSteps: sql<
      [number],
      { timestamp: number; event_type: string; detail: string | null; definition: string | null }
    >(
      `SELECT l.timestamp, l.event_type, l.detail, w.definition FROM workflow_log l LEFT JOIN workflows w ON w.id = l.workflow_id
       WHERE l.vid = ? ORDER BY l.seq DESC LIMIT 100`,
    ),
    // Webhook calls still being tried: shown at their next attempt.
    pendingWebhooks: sql<
      [number],
      { next_at: number; attempts: number; method: string; url: string; event_id: string; definition: string | null }
    >(
      `SELECT d.next_at, d.attempts, d.method, d.url, d.event_id, w.definition FROM webhook_deliveries d LEFT JOIN workflows w ON w.id = d.workflow_id
       WHERE d.vid = ? AND d.status = 'pending' ORDER BY d.id`,
    ),
    memberships: sql<[number], { name: string; added_at: number; dynamic: number }>(
      'SELECT l.name, m.added_at, l.dynamic FROM list_members m JOIN lists l ON l.list_id = m.list_id WHERE m.vid = ? ORDER BY m.added_at DESC',
    ),
    lists: sql<[number], { list_id: number; name: string; dynamic: number; size: number }>(
      'SELECT l.list_id, l.name, l.dynamic, (SELECT count(*) FROM list_members m WHERE m.list_id = l.list_id) AS size FROM lists l WHERE l.portal_id = ? ORDER BY l.list_id',
    ),
    forms: sql<[number], { guid: string; name: string | null; submissions: number; spam: number }>(
      `SELECT f.guid, ${jsonText('f.definition', '$.name')} AS name,
              (SELECT count(*) FROM form_submissions s WHERE s.form_guid = f.guid) AS submissions,
              (SELECT count(*) FROM spam_submissions p WHERE p.form_guid = f.guid AND p.released_at IS NULL) AS spam
       FROM forms f WHERE f.portal_id = ? ORDER BY f.created_at, f.seq`,
    ),
    feed: sql<
      [number, number, number],
      {
        seq: number;
        kind: number;
        utk: string;
        vid: number | null;
        timestamp: number;
        received_at: number;
        url: string | null;
        event_name: string | null;
        value: number | null;
      }
    >(
      'SELECT seq, kind, utk, vid, timestamp, received_at, url, event_name, value FROM tracking_events WHERE portal_id = ? AND seq > ? ORDER BY seq DESC LIMIT ?',
    ),
  };

  return {
    portals: (db: Queryable) => db.all(q.portals),

    async contacts(db: Queryable, portalId: number, search: string, offset: number) {
      const like = search ? `%${search.replace(/[%_\\]/g, '\\$&')}%` : '';
      const rows = await db.all(q.contacts, portalId, like, like, like, 51, offset);
      const contacts = [];
      for (const r of rows.slice(0, 50)) {
        const p = json<Record<string, string>>(r.properties);
        const utks = (await db.all(q.utks, r.vid)).map((u) => u.utk);
        contacts.push({
          vid: r.vid,
          email: r.email,
          name: name(p),
          company: p.company ?? '',
          updatedAt: r.updated_at,
          utks,
        });
      }
      return {
        contacts,
        hasMore: rows.length > 50,
      };
    },

    /** One contact: properties, identities, list memberships and a timeline, newest first. */
    async contact(db: Queryable, portalId: number, vid: number) {
      const row = await db.get(q.contact, portalId, vid);
      if (!row) return undefined;
      const properties = json<Record<string, string>>(row.properties);
      const timeline: TimelineItem[] = [];
      for (const e of await db.all(q.tracking, vid)) {
        if (e.kind == 1)
          timeline.push({
            at: e.timestamp,
            kind: 'page view',
            title: e.title || e.url || 'page',
            detail: e.url ?? undefined,
          });
        else
          timeline.push({
            at: e.timestamp,
            kind: 'event',
            title: e.event_name ?? 'event',
            detail: e.value != null ? `value ${e.value}` : e.source,
            properties: ownProperties(e.source, e.data),
          });
      }
      for (const s of await db.all(q.submissions, vid))
        timeline.push({
          at: s.timestamp,
          kind: 'form submission',
          title: s.title ?? 'form',
          detail: [s.page_url, Object.keys(json(s.values_json)).join(', ')].filter(Boolean).join(' · '),
        });
      if (row.email) {
        // Subscription types by name (an id when its type is gone).
        const named = new Map((await db.all(q.subscriptionNames, portalId)).map((t) => [Number(t.id), t.name]));
        for (const c of await db.all(q.statusChanges, portalId, row.email)) {
          const d = json<{ subscriptions?: { id: number; status: string }[]; portalSubscriptionStatus?: string }>(
            c.data,
          );
          const changes = (d.subscriptions ?? [])
            .map((s) => `${named.get(Number(s.id)) ?? `type ${s.id}`}: ${s.status.toLowerCase()}`)
            .join(', ');
          timeline.push({
            at: c.created,
            kind: 'subscription change',
            title: d.portalSubscriptionStatus == 'UNSUBSCRIBED' ? 'unsubscribed from all' : 'subscriptions changed',
            detail: changes,
          });
        }
      }
      for (const w of await db.all(q.workflowSteps, vid))
        timeline.push({
          at: w.timestamp,
          kind: 'workflow',
          title: `${json<{ name?: string }>(w.definition).name ?? 'workflow'}: ${w.event_type.toLowerCase().replace(/_/g, ' ')}`,
          detail: w.detail ?? undefined,
        });
      for (const d of await db.all(q.pendingWebhooks, vid))
        timeline.push({
          at: d.next_at,
          kind: 'workflow',
          title: `${json<{ name?: string }>(d.definition).name ?? 'workflow'}: webhook pending`,
          detail: `${d.method} ${d.url}: ${d.attempts ? `${d.attempts} attempt${d.attempts == 1 ? '' : 's'} so far, ` : ''}next attempt at ${new Date(d.next_at).toISOString()} (event ${d.event_id})`,
        });
      const lists = await db.all(q.memberships, vid);
      const utks = await db.all(q.utks, vid);
      for (const l of lists) timeline.push({ at: l.added_at, kind: 'list', title: `joined ${l.name}` });
      timeline.sort((a, b) => b.at - a.at);
      return {
        vid: row.vid,
        email: row.email,
        name: name(properties),
        createdAt: row.created_at,
        updatedAt: row.updated_at,
        properties,
        // Where the contact came from, and how it came back (attribution, README).
        source: {
          original: [
            properties.svc_analytics_source,
            properties.svc_analytics_source_data_1,
            properties.svc_analytics_source_data_2,
          ].filter(Boolean),
          latest: [
            properties.svc_analytics_latest_source,
            properties.svc_analytics_latest_source_data_1,
            properties.svc_analytics_latest_source_data_2,
          ].filter(Boolean),
          visits: Number(properties.svc_analytics_num_visits ?? 0),
          pageViews: Number(properties.svc_analytics_num_page_views ?? 0),
          firstReferrer: properties.svc_analytics_first_referrer ?? null,
        },
        identities: [
          ...(row.email ? [{ type: 'EMAIL', value: row.email, at: row.created_at }] : []),
          ...utks.map((u) => ({ type: 'LEAD_GUID (svcutk)', value: u.utk, at: u.linked_at })),
        ],
        lists: lists.map((l) => ({ name: l.name, dynamic: !!l.dynamic, addedAt: l.added_at })),
        timeline,
      };
    },

    lists: async (db: Queryable, portalId: number) =>
      (await db.all(q.lists, portalId)).map((l) => ({
        id: l.list_id,
        name: l.name,
        dynamic: !!l.dynamic,
        size: l.size,
      })),
    forms: (db: Queryable, portalId: number) => db.all(q.forms, portalId),

    /** Tracking received after `after` (a sequence number), newest first. */
    async feed(db: Queryable, portalId: number, after: number) {
      return (await db.all(q.feed, portalId, after, 50)).map((e) => ({
        seq: e.seq,
        kind: e.kind == 1 ? 'page view' : 'event',
        utk: e.utk,
        vid: e.vid,
        at: e.timestamp,
        receivedAt: e.received_at,
        title: (e.kind == 1 ? e.url : e.event_name) ?? undefined,
        value: e.value == null ? undefined : String(e.value),
      }));
    },
  };
}

export type InspectorQueries = ReturnType<typeof inspectorQueries>;
