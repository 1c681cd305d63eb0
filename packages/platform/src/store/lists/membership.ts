/** Who is in a list: members put in or out in chunks, a dynamic list evaluated in full over the
 * portal's contacts, and what the filters' form conditions need (which contacts submitted which
 * forms). Runs in the caller's transaction, under the portal's list lock (store.ts). */
import type { Queryable } from '../../db/engine';
import { formsNamed, matches, type ListFilters, type Subject } from '../list-filters';
import type { ListRow, ListSql } from './sql';

/** Contacts read per step of a full evaluation, and members changed per statement (bounds memory
 * and statement size on large portals). */
const CHUNK = 1000;
export function membership(q: ListSql, now: () => number) {
  /** Which of `vids` submitted which of `forms` (one query for them all, none when no filter names
   * a form). */
  function submitted(db: Queryable, portalId: number, vids: number[], forms: string[]) {
    if (!forms.length || !vids.length) return Promise.resolve([]);
    // One contact (a single write's re-check) by its index alone: several times cheaper on SQLite.
    return vids.length == 1
      ? db.all(q.submittedBy, portalId, vids[0])
      : db.all(q.submitted, portalId, JSON.stringify(vids), JSON.stringify(forms));
  }

  /** The Subject of each contact, given what `submitted` found. */
  function subjects(rows: { vid: number; form_guid: string }[]) {
    const done = new Set(rows.map((r) => `${r.vid} ${r.form_guid}`));
    return (vid: number, properties: Record<string, string>): Subject => ({
      properties,
      hasSubmitted: (guid) => done.has(`${vid} ${guid}`),
    });
  }

  /** Puts the contacts in (or out of) the list; a member that stays keeps its addedAt. Answers the
   * vids that changed. */
  async function setMembers(db: Queryable, listId: number, vids: number[], member: boolean, at: number) {
    // One contact (a single write's re-check, a workflow step) by its key: on SQLite a statement
    // over json_each costs several times more, which a form submission would feel.
    if (vids.length == 1) {
      const changes = member
        ? await db.run(q.addMember, listId, vids[0], at)
        : await db.run(q.removeMember, listId, vids[0]);
      return changes ? vids : [];
    }
    const changed: number[] = [];
    for (let i = 0; i < vids.length; i += CHUNK) {
      const ids = JSON.stringify(vids.slice(i, i + CHUNK));
      const rows = member ? await db.all(q.addMembers, listId, at, ids) : await db.all(q.removeMembers, listId, ids);
      for (const r of rows) changed.push(r.vid);
    }
    return changed;
  }

  /** Full evaluation of a dynamic list over all the portal's contacts, in the transaction `t` that
   * holds the portal's list lock alone. */
  async function evaluate(t: Queryable, list: Pick<ListRow, 'list_id' | 'portal_id' | 'filters'>) {
    const filters = JSON.parse(list.filters) as ListFilters;
    const forms = formsNamed(filters);
    const keep = new Set<number>();
    for (let after = 0; ;) {
      const chunk = await t.all(q.contactsAfter, list.portal_id, after, CHUNK);
      const subject = subjects(
        await submitted(
          t,
          list.portal_id,
          chunk.map((c) => c.vid),
          forms,
        ),
      );
      for (const c of chunk)
        if (matches(filters, subject(c.vid, JSON.parse(c.properties) as Record<string, string>))) keep.add(c.vid);
      if (chunk.length < CHUNK) break;
      after = chunk[CHUNK - 1].vid;
    }
    const members = new Set((await t.all(q.memberVids, list.list_id)).map((m) => m.vid));
    const at = now();
    const left = await setMembers(
      t,
      list.list_id,
      [...members].filter((vid) => !keep.has(vid)),
      false,
      at,
    );
    await setMembers(
      t,
      list.list_id,
      [...keep].filter((vid) => !members.has(vid)),
      true,
      at,
    );
    await t.run(q.processed, at, list.list_id);
    if (left.length) await t.run(q.sizeChanged, at, list.list_id);
  }

  return { submitted, subjects, setMembers, evaluate };
}
