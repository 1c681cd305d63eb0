/** Issue 38 on the platform, over real HTTP: spam is judged on evidence a person does not produce,
 * every verdict is listed in the inspector's API and can be released as not spam (replayed once,
 * as it was sent, with its original time), and a submission's context never costs it: a malformed
 * utk, URL or title is ignored, named in a header and logged without its value. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { seedEmailDefaults } from '../src/store/email-seed';
import { startPlatform, type TestPlatform } from './harness';

const KEY = 'spam-review-inspector-key';
const PORTAL = 62515;
const logged: object[] = [];
let t: TestPlatform;
beforeAll(async () => {
  // A logger that keeps what it is given: the ignored context must be told without its values.
  const keep = (obj: object, msg?: string) => void logged.push({ ...obj, msg });
  const logger = {
    warn: keep,
    error: keep,
    info: keep,
    debug: keep,
    trace: keep,
    fatal: keep,
    child: () => logger,
    level: 'warn',
  };
  t = await startPlatform({ inspectorKey: KEY, logger: logger as never });
  await seedEmailDefaults(t.platform.services.engine, PORTAL, t.clock.now);
});
afterAll(() => t.close());

async function createForm(body: Record<string, unknown>) {
  const res = await t.call('POST', '/contacts/v1/forms', { body });
  expect(res.status, JSON.stringify(res.json)).toBe(200);
  return res.json as { guid: string };
}

/** A submission as a browser posts it: `params` in order, `context` as the named parameter's JSON
 * (or the raw text given). */
function submit(guid: string, fields: [string, string][], context?: unknown, name = 'svc_context') {
  const params = new URLSearchParams(fields);
  if (context !== undefined) params.set(name, typeof context == 'string' ? context : JSON.stringify(context));
  return t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${guid}`, {
    body: params.toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    portal: null,
  });
}

const inspect = (path: string, method = 'GET') =>
  t.call(method, `/_inspector/api/${path}`, { headers: { authorization: `Bearer ${KEY}` }, portal: null });
const profile = (email: string) => t.call('GET', `/contacts/v1/contact/email/${email}/profile?formSubmissionMode=all`);
const spamOf = async (guid: string) =>
  (await inspect(`forms/${guid}/spam?portal=${PORTAL}`)).json as {
    conversionId: string;
    reason: string;
    timestamp: number;
    values: Record<string, string>;
    released: unknown;
  }[];

describe('spam verdicts a person survives', () => {
  let guid: string;
  beforeAll(async () => {
    guid = (await createForm({ name: 'Verdicts', fields: [{ name: 'email', required: true }, { name: 'firstname' }] }))
      .guid;
  });

  const people: [string, object | undefined][] = [
    ['a quick typist (one second, keys pressed)', { fillTimeMs: 900, interactions: 25 }],
    ['a keyboard-only person (Tab and Enter only)', { fillTimeMs: 400, interactions: 2 }],
    [
      'a returning visitor whose form was pre-filled, sent at once with a click',
      { fillTimeMs: 300, interactions: 1, prefilled: 2 },
    ],
    ['a pre-filled form sent with no event the embed saw', { fillTimeMs: 100, interactions: 0, prefilled: 2 }],
    ['an autofilled form', { fillTimeMs: 150, interactions: 0, autofilled: 2 }],
    ['a slow post with no interaction seen (not instant)', { fillTimeMs: 20_000, interactions: 0 }],
    ['an older embed that sends only a fill time', { fillTimeMs: 50 }],
    ['an API client (no evidence at all)', undefined],
  ];
  for (const [i, [who, context]] of people.entries())
    it(`${who}: a contact`, async () => {
      const email = `person${i}@example.com`;
      expect((await submit(guid, [['email', email]], context)).status).toBe(204);
      expect((await profile(email)).status).toBe(200);
    });

  it('a bot posting instantly with no interaction, and one filling the honeypot: flagged, no contact, a success to them', async () => {
    expect(
      (
        await submit(guid, [['email', 'instant@bots.test']], {
          fillTimeMs: 40,
          interactions: 0,
          prefilled: 0,
          autofilled: 0,
        })
      ).status,
    ).toBe(204);
    t.clock.now += 1000;
    expect(
      (
        await submit(
          guid,
          [
            ['email', 'trap@bots.test'],
            ['svc-hp', 'http://pills.test'],
          ],
          { fillTimeMs: 5000, interactions: 30 },
        )
      ).status,
    ).toBe(204);
    expect((await profile('instant@bots.test')).status).toBe(404);
    expect((await profile('trap@bots.test')).status).toBe(404);
    const spam = await spamOf(guid);
    expect(spam.map((s) => [s.values.email, s.reason, s.released])).toEqual([
      ['trap@bots.test', 'HONEYPOT', null],
      ['instant@bots.test', 'NO_INTERACTION', null],
    ]);
  });
});

describe('review and release', () => {
  let guid: string;
  let workflowId: number;
  beforeAll(async () => {
    const types = (await t.call('GET', '/email/public/v1/subscriptions')).json.subscriptionDefinitions.map(
      (d: { id: number }) => d.id,
    ) as number[];
    guid = (
      await createForm({
        name: 'Release me',
        fields: [{ name: 'email', required: true }, { name: 'firstname' }],
        legalConsentOptions: {
          consentToProcessText: 'We process your data.',
          communicationsCheckboxes: [{ subscriptionTypeId: types[0], label: 'News', required: false }],
        },
      })
    ).guid;
    const wf = await t.call('POST', '/automation/v2/workflows', {
      body: {
        name: 'Welcome released',
        segmentCriteria: [[{ operator: 'HAS_FILLED_OUT_FORM', form: guid }]],
        actions: [{ type: 'SET_CONTACT_PROPERTY', propertyName: 'jobtitle', newValue: 'Lead' }],
      },
    });
    expect(wf.status, wf.text).toBe(200);
    workflowId = wf.json.id;
    const list = await t.call('POST', '/contacts/v1/lists', {
      body: {
        name: 'Filled release form',
        dynamic: true,
        filters: [[{ operator: 'HAS_FILLED_OUT_FORM', form: guid }]],
      },
    });
    expect(list.status).toBe(200);
  });

  it('lists a verdict with reason, time, page and values; needs the key; 404 for an unknown form', async () => {
    const sent = t.clock.now;
    expect(
      (
        await submit(
          guid,
          [
            ['email', 'listed@example.com'],
            ['firstname', 'Lis'],
          ],
          { fillTimeMs: 10, interactions: 0, pageUrl: 'https://acme.test/contact', pageName: 'Contact' },
        )
      ).status,
    ).toBe(204);
    const [one] = await spamOf(guid);
    expect(one).toMatchObject({
      reason: 'NO_INTERACTION',
      timestamp: sent,
      pageUrl: 'https://acme.test/contact',
      pageName: 'Contact',
      values: { email: 'listed@example.com', firstname: 'Lis' },
      released: null,
    });
    const noKey = await t.call('GET', `/_inspector/api/forms/${guid}/spam?portal=${PORTAL}`, { portal: null });
    expect(noKey.status).toBe(401);
    const unknown = await inspect(`forms/no-such-form/spam?portal=${PORTAL}`);
    expect([unknown.status, unknown.json.message]).toEqual([404, "No form found with guid 'no-such-form'"]);
    const missing = await inspect(
      `forms/${guid}/spam/0190aaaa-0000-7000-8000-000000000000/release?portal=${PORTAL}`,
      'POST',
    );
    expect(missing.status).toBe(404);
  });

  it('"not spam" makes the contact once, with the original time, lists, workflow, consent and attribution', async () => {
    const utk = 'ee'.repeat(16);
    // The visitor reads a page first; their submission is then judged spam.
    const viewed = t.clock.now;
    const event = {
      eid: 'f1'.repeat(16),
      k: '1',
      a: String(PORTAL),
      v: '1',
      cts: String(viewed),
      pu: 'https://acme.test/pricing?utm_source=news&utm_medium=email&utm_campaign=winter',
      t: 'Pricing',
      po: '/pricing',
      vi: utk,
    };
    expect(
      (
        await t.call('POST', '/collect/e', {
          body: JSON.stringify([event]),
          headers: { 'content-type': 'text/plain' },
          portal: null,
        })
      ).json,
    ).toMatchObject({ accepted: 1 });
    const sent = (t.clock.now += 60_000);
    const consent = {
      consent: {
        consentToProcess: true,
        communications: [
          {
            value: true,
            subscriptionTypeId: (await t.call('GET', '/email/public/v1/subscriptions')).json.subscriptionDefinitions[0]
              .id,
          },
        ],
      },
    };
    const params = new URLSearchParams([
      ['email', 'freed@example.com'],
      ['firstname', 'Fay'],
      [
        'svc_context',
        JSON.stringify({ svcutk: utk, fillTimeMs: 5, interactions: 0, pageUrl: 'https://acme.test/contact' }),
      ],
      ['legalConsentOptions', JSON.stringify(consent)],
    ]);
    const res = await t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${guid}`, {
      body: params.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
    expect(res.status).toBe(204);
    expect((await profile('freed@example.com')).status).toBe(404);
    const spam = (await spamOf(guid)).find((s) => s.values.email == 'freed@example.com')!;

    // An hour later, a person reviews it.
    const releasedAt = (t.clock.now += 3_600_000);
    const first = await inspect(`forms/${guid}/spam/${spam.conversionId}/release?portal=${PORTAL}`, 'POST');
    expect(first.status, first.text).toBe(200);
    expect(first.json).toMatchObject({
      conversionId: spam.conversionId,
      alreadyReleased: false,
      released: { at: releasedAt, vid: expect.any(Number) },
    });
    const vid = first.json.released.vid as number;

    const c = (await profile('freed@example.com')).json;
    expect(c.vid).toBe(vid);
    expect(c.properties.firstname.value).toBe('Fay');
    // The submission as it was: its conversion id, its time, the contact made then.
    expect(c['form-submissions']).toEqual([
      expect.objectContaining({
        'conversion-id': spam.conversionId,
        'form-id': guid,
        timestamp: sent,
        'page-url': 'https://acme.test/contact',
      }),
    ]);
    expect(c.properties.createdate.value).toBe(String(sent));
    expect(c.properties.recent_conversion_date.value).toBe(String(sent));
    expect(c.properties.firstname.versions[0]).toMatchObject({
      'source-type': 'FORM',
      'source-id': spam.conversionId,
      timestamp: sent,
    });
    // Attribution: the visitor's page view counts for the contact, and its source is theirs.
    expect((await t.call('GET', `/contacts/v1/contact/utk/${utk}/profile`)).json.vid).toBe(vid);
    expect(c.properties.svc_analytics_num_page_views.value).toBe('1');
    expect(c.properties.svc_analytics_source.value).toBe('EMAIL_MARKETING');
    // Consent: the subscription ticked is recorded.
    const status = (await t.call('GET', '/email/public/v1/subscriptions/freed@example.com')).json;
    expect(
      status.subscriptionStatuses.find(
        (s: { id: number }) => s.id == consent.consent.communications[0].subscriptionTypeId,
      ),
    ).toMatchObject({ subscribed: true, legalBasis: 'CONSENT_WITH_NOTICE' });
    // The dynamic list and the workflow see a submission.
    expect(c['list-memberships'].length).toBe(1);
    await t.platform.services.workflows.runDue();
    const past = (await t.call('GET', `/automation/v2/workflows/${workflowId}/logevents/contacts/${vid}/past`))
      .json as { eventType: string }[];
    expect(past.map((e) => e.eventType)).toContain('ENROLLED');
    expect((await profile('freed@example.com')).json.properties.jobtitle.value).toBe('Lead');

    // Released twice: the first release answered again, nothing written.
    t.clock.now += 60_000;
    const second = await inspect(`forms/${guid}/spam/${spam.conversionId}/release?portal=${PORTAL}`, 'POST');
    expect(second.status).toBe(200);
    expect(second.json).toMatchObject({
      conversionId: spam.conversionId,
      alreadyReleased: true,
      released: { at: releasedAt, vid },
    });
    const after = (await profile('freed@example.com')).json;
    expect(after['form-submissions']).toHaveLength(1);
    expect(after.properties.num_conversion_events.value).toBe('1');
    expect((await spamOf(guid)).find((s) => s.conversionId == spam.conversionId)!.released).toEqual({
      at: releasedAt,
      vid,
    });
    // The inspector's count of spam leaves it out.
    const forms = (await inspect(`forms?portal=${PORTAL}`)).json as {
      guid: string;
      spam: number;
      submissions: number;
    }[];
    expect(forms.find((f) => f.guid == guid)).toMatchObject({ submissions: 1 });
  });

  it('two releases at once make one contact', async () => {
    await submit(guid, [['email', 'twice@example.com']], { fillTimeMs: 5, interactions: 0 });
    const spam = (await spamOf(guid)).find((s) => s.values.email == 'twice@example.com')!;
    const both = await Promise.all(
      [1, 2].map(() => inspect(`forms/${guid}/spam/${spam.conversionId}/release?portal=${PORTAL}`, 'POST')),
    );
    expect(both.map((r) => r.status)).toEqual([200, 200]);
    expect(both.map((r) => r.json.alreadyReleased).sort()).toEqual([false, true]);
    expect((await profile('twice@example.com')).json['form-submissions']).toHaveLength(1);
  });

  it('a submission the form no longer accepts is refused with the reason and stays spam', async () => {
    const form = await createForm({
      name: 'Changing',
      fields: [{ name: 'email', required: true }, { name: 'company' }],
    });
    await submit(
      form.guid,
      [
        ['email', 'changed@example.com'],
        ['company', 'Acme'],
      ],
      { fillTimeMs: 5, interactions: 0 },
    );
    const [spam] = await spamOf(form.guid);
    expect(
      (
        await t.call('POST', `/contacts/v1/forms/${form.guid}`, {
          body: { fields: [{ name: 'email', required: true }] },
        })
      ).status,
    ).toBe(200);
    const refused = await inspect(`forms/${form.guid}/spam/${spam.conversionId}/release?portal=${PORTAL}`, 'POST');
    expect(refused.status).toBe(400);
    expect(refused.json.message).toBe("Field 'company' is not on the form");
    expect((await spamOf(form.guid))[0].released).toBeNull();
    expect((await profile('changed@example.com')).status).toBe(404);
  });
});

describe('context never costs a submission', () => {
  let guid: string;
  beforeAll(async () => {
    guid = (await createForm({ name: 'Legacy page', fields: [{ name: 'email', required: true }] })).guid;
  });

  const bad: [string, Record<string, unknown>, string][] = [
    ['a malformed svcutk', { svcutk: 'not-a-token' }, 'svcutk'],
    ['a malformed hutk', { hutk: 'abc123' }, 'hutk'],
    ['an oversized svcutk', { svcutk: 'a'.repeat(5000) }, 'svcutk'],
    ['an oversized pageUrl', { pageUrl: `https://acme.test/?q=${'x'.repeat(5000)}` }, 'pageUrl'],
    ['a pageUrl that is not text', { pageUrl: { href: 'https://acme.test/' } }, 'pageUrl'],
    ['an oversized pageName', { pageName: 'T'.repeat(2000) }, 'pageName'],
    ['a redirectUrl that is not http', { redirectUrl: 'javascript:alert(1)' }, 'redirectUrl'],
    ['several at once', { hutk: 'x', pageUrl: 7, pageName: 'Fine' }, 'hutk, pageUrl'],
  ];
  for (const [i, [what, context, named]] of bad.entries())
    it(`${what}: 204, named in the header, the contact exists`, async () => {
      const email = `ctx${i}@example.com`;
      const res = await submit(guid, [['email', email]], context);
      expect(res.status).toBe(204);
      expect(res.headers.get('x-svc-ignored-context')).toBe(named);
      expect(res.headers.get('access-control-expose-headers')).toBe('X-Svc-Ignored-Context');
      expect((await profile(email)).status).toBe(200);
    });

  it('a context that is not a JSON object is ignored whole', async () => {
    for (const [i, raw] of ['{not json', '[1,2]', '"text"', 'null'].entries()) {
      const res = await submit(guid, [['email', `whole${i}@example.com`]], raw);
      expect(res.status, raw).toBe(204);
      expect(res.headers.get('x-svc-ignored-context')).toBe('svc_context');
      expect((await profile(`whole${i}@example.com`)).status).toBe(200);
    }
  });

  it('what is well formed is still used: the good utk links, the page is kept', async () => {
    const utk = 'cd'.repeat(16);
    const res = await submit(guid, [['email', 'kept@example.com']], {
      svcutk: utk,
      pageUrl: 'https://acme.test/kept',
      pageName: 'x'.repeat(3000),
    });
    expect(res.headers.get('x-svc-ignored-context')).toBe('pageName');
    const c = (await profile('kept@example.com')).json;
    expect(c['form-submissions'][0]['page-url']).toBe('https://acme.test/kept');
    expect((await t.call('GET', `/contacts/v1/contact/utk/${utk}/profile`)).json.vid).toBe(c.vid);
  });

  it('the ignored fields are logged by name, never with their values', async () => {
    logged.length = 0;
    const secret = 'ab'.repeat(20);
    await submit(guid, [['email', 'logged@example.com']], {
      svcutk: secret,
      pageUrl: 'https://acme.test/?token=sekrit'.padEnd(5000, 'z'),
    });
    const lines = logged.filter((l) => (l as { msg?: string }).msg?.includes('svc_context'));
    expect(lines).toEqual([expect.objectContaining({ ignored: ['svcutk', 'pageUrl'], formGuid: guid })]);
    expect(JSON.stringify(logged)).not.toContain(secret);
    expect(JSON.stringify(logged)).not.toContain('sekrit');
  });

  it('the legacy hs_context is read as svc_context (legacy site code, the hubspot@2 client)', async () => {
    const utk = 'ba'.repeat(16);
    const res = await submit(
      guid,
      [['email', 'legacy@example.com']],
      { hutk: utk, pageUrl: 'https://acme.test/legacy', pageName: 'Legacy' },
      'hs_context',
    );
    expect(res.status).toBe(204);
    expect(res.headers.get('x-svc-ignored-context')).toBeNull();
    const c = (await profile('legacy@example.com')).json;
    expect(c['form-submissions'][0]).toMatchObject({ 'page-url': 'https://acme.test/legacy', 'page-title': 'Legacy' });
    expect((await t.call('GET', `/contacts/v1/contact/utk/${utk}/profile`)).json.vid).toBe(c.vid);
    // A malformed legacy context costs nothing either.
    const odd = await submit(guid, [['email', 'legacy2@example.com']], '{"hutk": "zz"', 'hs_context');
    expect([odd.status, odd.headers.get('x-svc-ignored-context')]).toEqual([204, 'svc_context']);
    expect((await profile('legacy2@example.com')).status).toBe(200);
  });

  it('with both names, svc_context is read and hs_context is not taken for a field', async () => {
    const params = new URLSearchParams([
      ['email', 'both@example.com'],
      ['svc_context', JSON.stringify({ pageUrl: 'https://acme.test/new' })],
      ['hs_context', JSON.stringify({ pageUrl: 'https://acme.test/old' })],
    ]);
    const res = await t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${guid}`, {
      body: params.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
    expect(res.status).toBe(204);
    expect((await profile('both@example.com')).json['form-submissions'][0]['page-url']).toBe('https://acme.test/new');
  });
});
