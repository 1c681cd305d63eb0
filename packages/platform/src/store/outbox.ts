/** The mail catcher: the emails workflows sent, as rendered (domain/email-message.ts), kept for
 * the inspector to show, since the platform has no mail server. A message is added in the
 * transaction of its SENT event (store/email.ts send), so there is never one without the other;
 * each portal keeps its newest `keep` messages, older ones are deleted as new ones come. */
import { type Queryable, sql } from '../db/engine';
import type { RenderedEmail } from '../domain/email-message';

/** Messages a portal keeps by default. */
export const OUTBOX_KEEP = 500;
/** Messages in one page of the list. */
const PAGE = 50;

export interface CaughtEmail extends RenderedEmail {
  campaignId: number;
  workflowId: number | null;
  vid: number | null;
  /** Whether it carries a preference link. */
  preferenceLink: boolean;
  sentAt: number;
}

interface Row {
  seq: number;
  campaign_id: number;
  workflow_id: number | null;
  vid: number | null;
  recipient: string;
  sender: string;
  subject: string;
  text_body: string;
  html_body: string;
  preference_link: number;
  sent_at: number;
  workflow: string | null;
}

const SUMMARY =
  'o.seq, o.campaign_id, o.workflow_id, o.vid, o.recipient, o.sender, o.subject, o.preference_link, o.sent_at, w.definition AS workflow';

const q = {
  add: sql<[number, number, number | null, number | null, string, string, string, string, string, number, number]>(
    `INSERT INTO email_outbox (portal_id, campaign_id, workflow_id, vid, recipient, sender, subject, text_body, html_body, preference_link, sent_at)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  // Everything older than the portal's newest `keep` (nothing while it has no more than that).
  prune: sql<[number, number, number]>(
    'DELETE FROM email_outbox WHERE portal_id = ? AND seq <= (SELECT seq FROM email_outbox WHERE portal_id = ? ORDER BY seq DESC LIMIT 1 OFFSET ?)',
  ),
  page: sql<[number, number, number], Omit<Row, 'text_body' | 'html_body'>>(
    `SELECT ${SUMMARY} FROM email_outbox o LEFT JOIN workflows w ON w.id = o.workflow_id
     WHERE o.portal_id = ? AND o.seq < ? ORDER BY o.seq DESC LIMIT ?`,
  ),
  // The admin API's view: every portal's (or one's), with bodies, newest first.
  recent: sql<[number, number, number, string, number, number], Row & { portal_id: number }>(
    `SELECT ${SUMMARY}, o.portal_id, o.text_body, o.html_body FROM email_outbox o LEFT JOIN workflows w ON w.id = o.workflow_id
     WHERE (? = 0 OR o.portal_id = ?) AND (? = 0 OR o.recipient = ?) AND o.seq < ?
     ORDER BY o.seq DESC LIMIT ?`,
  ),
  clear: sql<[number, number]>('DELETE FROM email_outbox WHERE ? = 0 OR portal_id = ?'),
  one: sql<[number, number], Row>(
    `SELECT ${SUMMARY}, o.text_body, o.html_body FROM email_outbox o LEFT JOIN workflows w ON w.id = o.workflow_id
     WHERE o.portal_id = ? AND o.seq = ?`,
  ),
};

const workflowName = (definition: string | null) =>
  definition ? ((JSON.parse(definition) as { name?: string }).name ?? null) : null;

function summary(r: Omit<Row, 'text_body' | 'html_body'>) {
  return {
    id: r.seq,
    to: r.recipient,
    from: r.sender,
    subject: r.subject,
    sentAt: r.sent_at,
    campaignId: r.campaign_id,
    workflowId: r.workflow_id,
    workflowName: workflowName(r.workflow),
    vid: r.vid,
    preferenceLink: !!r.preference_link,
  };
}

/** Every method takes where it runs (`db`: the engine, or a transaction's handle) first. */
export function outboxStore(keep = OUTBOX_KEEP) {
  if (!Number.isInteger(keep) || keep < 1)
    throw new TypeError(`the outbox keeps a whole number of messages, at least 1, not ${keep}`);
  return {
    async add(db: Queryable, portalId: number, m: CaughtEmail) {
      await db.run(
        q.add,
        portalId,
        m.campaignId,
        m.workflowId,
        m.vid,
        m.to,
        m.from,
        m.subject,
        m.text,
        m.html,
        m.preferenceLink ? 1 : 0,
        m.sentAt,
      );
      await db.run(q.prune, portalId, portalId, keep);
    },

    /** Newest first, a page at a time: `before` is the previous page's last id (0: the newest). */
    async list(db: Queryable, portalId: number, before = 0) {
      const rows = await db.all(q.page, portalId, before > 0 ? before : Number.MAX_SAFE_INTEGER, PAGE + 1);
      return { messages: rows.slice(0, PAGE).map(summary), hasMore: rows.length > PAGE };
    },

    /** The newest `limit` messages with their bodies, of one portal (0: all) and recipient. */
    async recent(db: Queryable, f: { portalId?: number; to?: string; limit: number }) {
      const portal = f.portalId ?? 0;
      const rows = await db.all(
        q.recent,
        portal,
        portal,
        f.to === undefined ? 0 : 1,
        f.to ?? '',
        Number.MAX_SAFE_INTEGER,
        f.limit,
      );
      return rows.map((r) => ({ ...summary(r), portalId: Number(r.portal_id), text: r.text_body, html: r.html_body }));
    },

    /** Forgets the caught messages of one portal (0: all); resolves to how many. */
    clear: (db: Queryable, portalId = 0) => db.run(q.clear, portalId, portalId),

    /** One message with its bodies, or undefined. */
    async get(db: Queryable, portalId: number, id: number) {
      const r = await db.get(q.one, portalId, id);
      return r && { ...summary(r), text: r.text_body, html: r.html_body };
    },
  };
}

export type OutboxStore = ReturnType<typeof outboxStore>;
