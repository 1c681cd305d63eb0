// Writes in bulk (services/bulk-queue.ts `writesInBulk`), as form submissions are written on
// PostgreSQL: the writes of one turn of the event loop, and those that arrive while a bulk is
// written, share one transaction, one after another; a bulk that fails is retried write by write;
// and over HTTP, concurrent submissions (of one visitor too) count as one after the other would.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Queryable, sql } from '../src/db/engine';
import { PlatformError } from '../src/domain/errors';
import { writesInBulk } from '../src/services/bulk-queue';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ portals: [{ id: 62515 }], publicRateLimit: false });
});
afterAll(() => t.close());

const PORTAL = 62515;
let n = 0;
const email = () => `bulk-${++n}@example.com`;

/** `write` that records the size of each bulk it is given (the writes run inside it). */
function counting() {
  const sizes: number[] = [];
  const write: typeof t.platform.services.write = (fn) =>
    t.platform.services.write(async (db) => {
      const out = (await fn(db)) as unknown[];
      sizes.push(out.length);
      return out as never;
    });
  return { sizes, write };
}

const upsert = (db: Queryable, address: string) =>
  t.platform.services.contacts.upsertByEmail(db, PORTAL, address, [{ property: 'firstname', value: 'Bulk' }]);
const exists = async (address: string) =>
  !!(await t.platform.services.contacts.getByEmail(t.platform.services.engine, PORTAL, address));

describe('writes in bulk', () => {
  it('runs the writes of one turn in one transaction, one after another, and those that arrive during it in the next', async () => {
    const { sizes, write } = counting();
    const bulkWrite = writesInBulk(write, { inFlight: 1 });
    const address = email();
    const order: string[] = [];
    // Two in one turn: the second sees what the first wrote (they share the transaction, in order).
    const early = [
      bulkWrite(async (db) => (order.push('first'), (await upsert(db, address)).isNew)),
      bulkWrite(async (db) => (order.push('second'), (await upsert(db, address)).isNew)),
    ];
    await new Promise((resolve) => setImmediate(resolve));
    // Three more while those are being written: the next bulk.
    const later = [0, 1, 2].map((i) =>
      bulkWrite(async (db) => (order.push(`later ${i}`), (await upsert(db, email())).isNew)),
    );
    expect(await Promise.all([...early, ...later])).toEqual([true, false, true, true, true]);
    expect(sizes).toEqual([2, 3]);
    expect(order).toEqual(['first', 'second', 'later 0', 'later 1', 'later 2']);
  });

  it('holds at most maxWrites writes in a bulk', async () => {
    const { sizes, write } = counting();
    const bulkWrite = writesInBulk(write, { inFlight: 1, maxWrites: 2 });
    await Promise.all([0, 1, 2, 3, 4].map(() => bulkWrite(async () => 'done')));
    expect(sizes).toEqual([2, 2, 1]);
  });

  it('retries a failed bulk one write at a time: a write never fails for another, and the failed bulk left nothing', async () => {
    const { sizes, write } = counting();
    const bulkWrite = writesInBulk(write, { inFlight: 1 });
    const addresses = [email(), email(), email(), email()];
    const bad = new PlatformError('invalid', 'the third is refused after its write');
    const attempts: number[] = [];
    const settled = await Promise.allSettled(
      addresses.map((address, i) =>
        bulkWrite(async (db) => {
          attempts.push(i);
          await upsert(db, address);
          if (i == 2) throw bad;
          return address;
        }),
      ),
    );
    expect(settled.map((s) => (s.status == 'fulfilled' ? s.value : s.reason))).toEqual([
      addresses[0],
      addresses[1],
      bad,
      addresses[3],
    ]);
    // The four together, one after another up to the failure (rolled back), then each alone:
    // three writes committed, of one each.
    expect(attempts).toEqual([0, 1, 2, 0, 1, 2, 3]);
    expect(sizes).toEqual([1, 1, 1]);
    expect(await Promise.all(addresses.map(exists))).toEqual([true, true, false, true]);
  });

  it('fails every write of a bulk at once, without retries, when the database is unreachable', async () => {
    const sizes: number[] = [];
    const down = new PlatformError('unavailable', 'the database is unavailable; try again shortly');
    const unreliable: typeof t.platform.services.write = (fn) =>
      t.platform.services.write(async (db) => {
        const out = (await fn(db)) as unknown[];
        sizes.push(out.length);
        if (sizes.length > 1) throw down;
        return out as never;
      });
    const bulkWrite = writesInBulk(unreliable, { inFlight: 1 });
    const first = bulkWrite(async () => 'up');
    await new Promise((resolve) => setImmediate(resolve)); // its bulk is being written
    const rest = [0, 1, 2].map(() => bulkWrite(async () => 'lost'));
    expect(await first).toBe('up');
    expect((await Promise.allSettled(rest)).map((r) => (r.status == 'rejected' ? r.reason : r.value))).toEqual([
      down,
      down,
      down,
    ]);
    expect(sizes).toEqual([1, 3]);
  });
});

describe('form submissions in bulk, over HTTP', () => {
  let guid: string;
  beforeAll(async () => {
    const res = await t.call('POST', '/contacts/v1/forms', {
      body: { name: 'Bulk', fields: [{ name: 'email', required: true }, { name: 'firstname' }] },
    });
    guid = res.json.guid;
  });
  const submit = (fields: Record<string, string>, form = guid) =>
    t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${form}`, {
      body: new URLSearchParams(fields).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
  const profile = async (address: string) =>
    (await t.call('GET', `/contacts/v1/contact/email/${address}/profile?formSubmissionMode=all`)).json;

  it('counts concurrent submissions of one visitor as one after the other would, and others’ alongside', async () => {
    const repeated = email();
    const others = Array.from({ length: 12 }, email);
    const answers = await Promise.all([
      ...Array.from({ length: 6 }, (_, i) => submit({ email: repeated, firstname: `Try ${i}` })),
      ...others.map((address) => submit({ email: address })),
    ]);
    expect(answers.map((a) => a.status)).toEqual(Array(18).fill(204));
    const contact = await profile(repeated);
    expect([contact.properties.num_conversion_events.value, contact['form-submissions'].length]).toEqual(['6', 6]);
    for (const address of others) expect((await profile(address)).properties.num_conversion_events.value).toBe('1');
    if (t.platform.services.engine.kind == 'postgres') {
      // Rows written by one transaction share its id (xmin): the 18 went in fewer transactions.
      const transactions = sql<[string], { n: number }>(
        'SELECT count(DISTINCT xmin::text) AS n FROM form_submissions WHERE form_guid = ?',
      );
      expect((await t.platform.services.engine.get(transactions, guid))!.n).toBeLessThan(18);
    }
  });

  it('answers each submission for itself when some of them fail: the others are stored, the failed ones left nothing', async () => {
    const good = [email(), email(), email()];
    const refused = email();
    const answers = await Promise.all([
      submit({ email: good[0] }),
      submit({ email: refused, firstname: 'No form' }, '00000000-0000-4000-8000-000000000000'),
      submit({ email: good[1] }),
      submit({ firstname: 'No email' }),
      submit({ email: good[2] }),
    ]);
    expect(answers.map((a) => a.status)).toEqual([204, 404, 204, 400, 204]);
    expect(await Promise.all([...good, refused].map(exists))).toEqual([true, true, true, false]);
  });
});
