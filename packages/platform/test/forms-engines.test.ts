/** The forms store on SQLite and on PostgreSQL, the same tests on both engines: a submission
 * writes its contact (through the contacts store) and its form_submissions row in one transaction
 * (the caller's, when it has one), and forms list in the order they were made. On PostgreSQL, two
 * processes' stores (form rows cached in each) submit against a form as the other changed it. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, sql } from '../src/db/engine';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { openPostgres } from '../src/db/open-postgres';
import { contactStore, type ContactStore } from '../src/store/contacts';
import { contentEngine } from '../src/store/content/engine';
import { formStore, type FormStore } from '../src/store/forms';
import { createPortal } from '../src/store/portals';
import { propertyStore } from '../src/store/properties';
import { socialStore } from '../src/store/social';
import { havePostgres, PG_URL, pgSchema } from './postgres';

const schema = await pgSchema('forms_store');
const twoSchema = await pgSchema('forms_store_two');
const engines: [string, boolean, () => Promise<Engine>][] = [
  ['sqlite', true, async () => sqliteEngine(openDatabase(':memory:'))],
  ['postgres', havePostgres, () => openPostgres(PG_URL, { schema })],
];

const PORTAL = 7;
const submissions = sql<[number], Record<string, unknown>>(
  'SELECT conversion_id, portal_id, vid, form_guid, timestamp, page_url, page_title, values_json FROM form_submissions WHERE portal_id = ? ORDER BY timestamp',
);

for (const [name, available, open] of engines) {
  describe.skipIf(!available)(`forms on ${name}`, () => {
    let db: Engine;
    let contacts: ContactStore;
    let forms: FormStore;
    let clock = 1_000_000;
    const now = () => clock;
    const propertiesOf = async (email: string) =>
      JSON.parse((await contacts.getByEmail(db, PORTAL, email))!.properties) as Record<string, string>;

    beforeAll(async () => {
      db = await open();
      await createPortal(
        db,
        { content: contentEngine(db, now), social: socialStore(db, now) },
        { id: PORTAL, name: 'Seven', tier: 'starter', now: clock },
      );
      const properties = propertyStore(db, now);
      contacts = contactStore(db, properties, now, () => {});
      forms = formStore(db, contacts, properties, now);
    });
    afterAll(() => db?.close());

    it('creates the contact and its form_submissions row on a submission, and counts the next one on the same contact', async () => {
      const form = await forms.create(db, PORTAL, {
        name: 'Signup',
        fields: [{ name: 'email', required: true }, { name: 'firstname' }, { name: 'company' }],
      });
      const context = { pageUrl: 'https://x.test/signup', pageName: 'Sign up' };
      const first = await forms.submit(
        db,
        PORTAL,
        form.guid,
        { email: 'Ada@Example.test', firstname: 'Ada', company: '' },
        context,
      );
      expect(first.redirect).toBeUndefined();
      const ada = await contacts.getByEmail(db, PORTAL, 'ada@example.test');
      expect(ada?.vid).toBe(first.vid);
      // A blank value is left out rather than written.
      expect(await propertiesOf('ada@example.test')).toMatchObject({
        email: 'ada@example.test',
        firstname: 'Ada',
        num_conversion_events: '1',
        recent_conversion_date: String(clock),
      });
      expect((await propertiesOf('ada@example.test')).company).toBeUndefined();
      expect(await db.all(submissions, PORTAL)).toEqual([
        {
          conversion_id: first.conversionId,
          portal_id: PORTAL,
          vid: first.vid,
          form_guid: form.guid,
          timestamp: clock,
          page_url: context.pageUrl,
          page_title: context.pageName,
          // Blank values are not kept either.
          values_json: JSON.stringify({ email: 'Ada@Example.test', firstname: 'Ada' }),
        },
      ]);

      // In a caller's transaction (a request's): the same contact, counted again.
      clock += 1000;
      const second = await db.tx((t) =>
        forms.submit(t, PORTAL, form.guid, { email: 'ada@example.test', firstname: 'Augusta' }, {}),
      );
      expect(second.vid).toBe(first.vid);
      expect(await propertiesOf('ada@example.test')).toMatchObject({
        firstname: 'Augusta',
        num_conversion_events: '2',
        recent_conversion_date: String(clock),
      });
      expect((await db.all(submissions, PORTAL)).map((s) => [s.vid, s.timestamp, s.page_url])).toEqual([
        [first.vid, clock - 1000, context.pageUrl],
        [first.vid, clock, null],
      ]);
    });

    it('counts every submission of one visitor made at once (each in a transaction of its own), with one contact', async () => {
      const form = await forms.create(db, PORTAL, { name: 'Rush', fields: [{ name: 'email' }, { name: 'firstname' }] });
      const made = await Promise.all(
        [1, 2, 3, 4, 5].map((n) =>
          db.tx((t) => forms.submit(t, PORTAL, form.guid, { email: 'rush@example.test', firstname: `R${n}` }, {})),
        ),
      );
      expect(new Set(made.map((m) => m.vid)).size).toBe(1);
      expect(await propertiesOf('rush@example.test')).toMatchObject({ num_conversion_events: '5' });
      expect((await db.all(submissions, PORTAL)).filter((s) => s.form_guid == form.guid)).toHaveLength(5);
    });

    it('writes nothing when the caller’s transaction rolls back, nor for a submission the form refuses', async () => {
      const form = (await forms.list(db, PORTAL)).find((f) => f.name == 'Signup')!;
      const before = await db.all(submissions, PORTAL);
      await expect(
        db.tx(async (t) => {
          await forms.submit(t, PORTAL, form.guid, { email: 'bob@example.test' }, {});
          throw new Error('the request failed later');
        }),
      ).rejects.toThrow('the request failed later');
      await expect(
        forms.submit(db, PORTAL, form.guid, { email: 'bob@example.test', shoe_size: '42' }, {}),
      ).rejects.toThrow("Field 'shoe_size' is not on the form");
      expect(await contacts.getByEmail(db, PORTAL, 'bob@example.test')).toBeUndefined();
      expect(await db.all(submissions, PORTAL)).toEqual(before);
      await expect(forms.submit(db, PORTAL, 'no-such-form', { email: 'bob@example.test' }, {})).rejects.toThrow(
        "No form found with guid 'no-such-form'",
      );
    });

    it('lists forms made in the same millisecond in the order they were made, updates and removes them', async () => {
      const made: string[] = [];
      for (const name of ['Tie 1', 'Tie 2', 'Tie 3'])
        made.push((await forms.create(db, PORTAL, { name, fields: [{ name: 'email' }] })).guid);
      const order = async () => (await forms.list(db, PORTAL)).map((f) => f.guid).filter((guid) => made.includes(guid));
      expect(await order()).toEqual(made);

      clock += 1000;
      const updated = await db.tx((t) =>
        forms.update(t, PORTAL, made[0], { submitText: 'Go', fields: [{ name: 'email' }, { name: 'phone' }] }),
      );
      expect(updated).toMatchObject({ name: 'Tie 1', submitText: 'Go', updatedAt: clock });
      expect(await forms.get(db, PORTAL, made[0])).toEqual(updated);
      expect((await forms.fields(db, PORTAL, made[0])).map((f) => f.name)).toEqual(['email', 'phone']);
      expect(await forms.field(db, PORTAL, made[0], 'phone')).toMatchObject({ name: 'phone', label: 'Phone Number' });
      expect(await order()).toEqual(made);

      // Updates at once (on PostgreSQL each in a transaction of its own) each keep the others' changes.
      await Promise.all(
        (['submitText', 'inlineMessage', 'cssClass', 'notifyRecipients', 'action'] as const).map((key) =>
          db.tx((t) => forms.update(t, PORTAL, made[2], { [key]: `${key} set` })),
        ),
      );
      expect(await forms.get(db, PORTAL, made[2])).toMatchObject({
        submitText: 'submitText set',
        inlineMessage: 'inlineMessage set',
        cssClass: 'cssClass set',
        notifyRecipients: 'notifyRecipients set',
        action: 'action set',
      });

      await forms.remove(db, PORTAL, made[1]);
      await expect(forms.remove(db, PORTAL, made[1])).rejects.toThrow(`No form found with guid '${made[1]}'`);
      await expect(forms.get(db, PORTAL, made[1])).rejects.toThrow(`No form found with guid '${made[1]}'`);
      expect(await order()).toEqual([made[0], made[2]]);
      // Another portal's forms are not there to see.
      expect(await forms.list(db, PORTAL + 1)).toEqual([]);
      await expect(forms.get(db, PORTAL + 1, made[0])).rejects.toThrow('No form found');
    });
  });
}

describe.skipIf(!havePostgres)('forms in two processes on one PostgreSQL database', () => {
  const two = [] as { db: Engine; contacts: ContactStore; forms: FormStore }[];
  const now = () => 2_000_000;

  beforeAll(async () => {
    for (const _ of [1, 2]) {
      const db = await openPostgres(PG_URL, { schema: twoSchema });
      const properties = propertyStore(db, now);
      const contacts = contactStore(db, properties, now, () => {});
      two.push({ db, contacts, forms: formStore(db, contacts, properties, now) });
    }
    await createPortal(
      two[0].db,
      { content: contentEngine(two[0].db, now), social: socialStore(two[0].db, now) },
      { id: PORTAL, name: 'Seven', tier: 'starter', now: now() },
    );
  });
  afterAll(() => Promise.all(two.map((p) => p.db.close())));

  it('submits against a form as the other process last changed it, not as it was when first read', async () => {
    const [a, b] = two;
    const form = await a.forms.create(a.db, PORTAL, { name: 'Shared', fields: [{ name: 'email' }] });
    // Read (and kept) by both.
    for (const p of two)
      await p.db.tx((t) => p.forms.submit(t, PORTAL, form.guid, { email: 'first@example.test' }, {}));
    await expect(
      b.forms.submit(b.db, PORTAL, form.guid, { email: 'x@example.test', firstname: 'X' }, {}),
    ).rejects.toThrow("Field 'firstname' is not on the form");

    // A change that rolls back changes nothing for either.
    await expect(
      a.db.tx(async (t) => {
        await a.forms.update(t, PORTAL, form.guid, { fields: [{ name: 'email' }, { name: 'firstname' }] });
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    for (const p of two)
      await expect(
        p.forms.submit(p.db, PORTAL, form.guid, { email: 'x@example.test', firstname: 'X' }, {}),
      ).rejects.toThrow("Field 'firstname' is not on the form");

    await a.db.tx((t) =>
      a.forms.update(t, PORTAL, form.guid, { fields: [{ name: 'email' }, { name: 'firstname', required: true }] }),
    );
    await expect(b.forms.submit(b.db, PORTAL, form.guid, { email: 'y@example.test' }, {})).rejects.toThrow(
      "Required field 'firstname' is missing",
    );
    const made = await b.db.tx((t) =>
      b.forms.submit(t, PORTAL, form.guid, { email: 'y@example.test', firstname: 'Yan' }, {}),
    );
    expect(JSON.parse((await b.contacts.get(b.db, PORTAL, made.vid!))!.properties)).toMatchObject({ firstname: 'Yan' });
    expect((await b.forms.get(b.db, PORTAL, form.guid)).formFieldGroups.map((g) => g.fields[0].name)).toEqual([
      'email',
      'firstname',
    ]);

    await b.forms.remove(b.db, PORTAL, form.guid);
    await expect(
      a.forms.submit(a.db, PORTAL, form.guid, { email: 'z@example.test', firstname: 'Zoe' }, {}),
    ).rejects.toThrow(`No form found with guid '${form.guid}'`);
    await expect(a.forms.get(a.db, PORTAL, form.guid)).rejects.toThrow('No form found');
  });
});
