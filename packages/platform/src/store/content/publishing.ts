/** The publishing state machine of §3 for posts and pages: publish now or at publish_date,
 * cancel, push the buffer live; the scheduler's run that publishes what is due; the jobs going
 * live sets off. */
import type { Queryable } from '../../db/engine';
import { badRequest } from '../../domain/errors';
import type { CollectionName, ContentRecord, Record_ } from './collections';
import { type ContentObjects, isTrue } from './objects';
import type { Row } from './sql';

export type PublishAction = 'schedule-publish' | 'cancel-publish' | 'push-buffer-live';

/** A job run when a post or page goes live, in its transaction: resolves to what it did (a line
 * of the object's history), or undefined when it did nothing. */
export type LiveJob = (db: Queryable, collection: CollectionName, record: ContentRecord) => Promise<string | undefined>;

export function contentPublishing(
  { q, now, findLive, toRecord, save }: ContentObjects,
  pushBufferLive: (db: Queryable, portalId: number, collection: CollectionName, id: number) => Promise<unknown>,
) {
  const PUBLISHED = { state: 'PUBLISHED', is_draft: false, current_state: 'PUBLISHED', processing_status: 'published' };
  const DRAFT = { state: 'DRAFT', is_draft: true, current_state: 'DRAFT', processing_status: 'draft' };

  /** Told of every object that goes live, in the same transaction: the jobs going live sets off
   * (§3; services send its tweets). Each resolves to what it did, for the history, or undefined
   * when it did nothing. */
  const liveListeners: LiveJob[] = [];

  /** Goes live now and runs the jobs §3 has publishing set off ("sends any enabled emails and
   * tweets"); the history records each job that did something, named for what it did, and
   * nothing when none did (nothing here sends a publish's emails: there is no mail server). */
  async function goLive(db: Queryable, row: Row, record: Record_) {
    const at = now();
    const next = await save(db, row, {
      ...record,
      ...PUBLISHED,
      publish_date: record.publish_date ?? at,
      unpublished_at: null,
      updated: at,
    });
    const live = await toRecord(db, next);
    for (const job of liveListeners) {
      const done = await job(db, row.collection, live);
      if (done) await db.run(q.history, row.id, done, at);
    }
    return next;
  }

  function publishAction(
    db: Queryable,
    portalId: number,
    collection: CollectionName,
    id: number,
    action: PublishAction,
  ) {
    return db.tx(async (t) => {
      const row = await findLive(t, portalId, collection, id);
      const record = JSON.parse(row.data) as Record_;
      if (action == 'push-buffer-live') return void (await pushBufferLive(t, portalId, collection, id));
      if (action == 'cancel-publish') {
        if (record.state == 'DRAFT') throw badRequest(`${collection} ${id} is neither scheduled nor published`);
        const unpublished = record.state == 'PUBLISHED' ? { unpublished_at: now() } : {};
        return void (await save(t, row, { ...record, ...DRAFT, ...unpublished, updated: now() }));
      }
      if (record.state == 'PUBLISHED') throw badRequest(`${collection} ${id} is already published`);
      // §3: null or true publishes at once and ignores publish_date; false waits for publish_date.
      if (record.publish_immediately == null || isTrue(record.publish_immediately))
        return void (await goLive(t, row, { ...record, publish_date: now() }));
      const at = Number(record.publish_date);
      if (record.publish_date == null || !Number.isFinite(at))
        throw badRequest(`${collection} ${id} has publish_immediately false and no publish_date to publish at`);
      if (at <= now()) return void (await goLive(t, row, record));
      // Scheduled for publish_date as it will be then: save keeps the schedule on it.
      await save(t, row, {
        ...record,
        state: 'SCHEDULED',
        is_draft: true,
        current_state: 'SCHEDULED',
        processing_status: 'scheduled',
        updated: now(),
      });
    });
  }

  /** Publishes every scheduled object whose publish_date has come; returns how many. Two runs at
   * once (two processes) read different objects (forUpdateSkipLocked); the claim keeps an object
   * that changed since it was read (published, rescheduled, cancelled) from going live here. */
  async function publishDue(db: Queryable) {
    let n = 0;
    for (const row of await db.all(q.due, now())) {
      if (!(await db.run(q.claim, row.id, row.publish_at!))) continue;
      await goLive(db, row, JSON.parse(row.data) as Record_);
      n++;
    }
    return n;
  }
  return { publishAction, publishDue, onLive: (job: LiveJob) => void liveListeners.push(job) };
}
