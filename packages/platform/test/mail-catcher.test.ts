/** The mail catcher over real HTTP: what a workflow's EMAIL step sent, kept as rendered (in the
 * transaction of its SENT event), with a preference link the companion's own token code accepts,
 * shown through the inspector's key-protected API. Runs on SQLite and on PostgreSQL. */
import { PREFERENCE_TOKEN_PARAM, verify } from '@svc/protocol/signed-token';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform } from '../src';
import { sql } from '../src/db/engine';
import { createCampaign } from '../src/store/email';
import { seedEmailDefaults } from '../src/store/email-seed';
import { startPlatform, type TestPlatform } from './harness';

const KEY = 'mail-catcher-inspector-key';
const SECRET = 'the-companions-link-secret-0123456789abcdef';
const PAGE = 'https://www.acme.test/svc/preferences';
const KEEP = 5;

let t: TestPlatform;
/** A second platform without preference links. */
let bare: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ inspectorKey: KEY, preferenceLinks: { url: PAGE, secret: SECRET }, outboxKeep: KEEP });
  bare = await startPlatform({ inspectorKey: KEY, portals: [{ id: 62515 }] });
  // The tests run the engine by hand on the moved clock.
  await t.platform.services.workflows.stop();
  await bare.platform.services.workflows.stop();
  for (const p of [t, bare]) await seedEmailDefaults(p.platform.services.engine, 62515, p.clock.now);
});
afterAll(async () => {
  await t?.close();
  await bare?.close();
});

const PORTAL = 62515;
const inspect = (p: TestPlatform, path: string, key: string | null = KEY) =>
  p.call('GET', `/_inspector/api/${path}`, { headers: key ? { authorization: `Bearer ${key}` } : {}, portal: null });

const props = (o: Record<string, string>) => ({
  properties: Object.entries(o).map(([property, value]) => ({ property, value })),
});

async function campaignNamed(p: TestPlatform, name: string) {
  const listed = (await p.call('GET', '/email/public/v1/campaigns')).json.campaigns as { id: number }[];
  for (const c of listed) {
    const full = (await p.call('GET', `/email/public/v1/campaigns/${c.id}`)).json;
    if (full.name == name) return full as { id: number; contentId: number; subject: string };
  }
  throw new Error(`no campaign ${name}`);
}

/** Makes a contact, a workflow that emails `campaignId`, enrols the contact and runs the step. */
async function mail(
  p: TestPlatform,
  email: string,
  campaignId: number,
  properties: Record<string, string> = {},
  workflowName = 'Thank leads',
) {
  expect(
    (
      await p.call('POST', '/contacts/v1/contact/createOrUpdate/email/' + encodeURIComponent(email), {
        body: props(properties),
      })
    ).status,
  ).toBe(200);
  const wf = await p.call('POST', '/automation/v2/workflows', {
    body: { name: workflowName, actions: [{ type: 'EMAIL', emailCampaignId: campaignId }] },
  });
  expect(wf.status).toBe(200);
  expect(
    (await p.call('POST', `/automation/v2/workflows/${wf.json.id}/enrollments/contacts/${encodeURIComponent(email)}`))
      .status,
  ).toBe(204);
  p.clock.now += 1000;
  await p.platform.services.workflows.runDue();
  return wf.json.id as number;
}

const caught = async (p: TestPlatform) => (await inspect(p, `mail?portal=${PORTAL}`)).json;

describe('the mail catcher', () => {
  it('keeps what an EMAIL step sent, rendered, with a preference link the companion accepts', async () => {
    const welcome = await campaignNamed(t, 'Welcome email');
    const workflowId = await mail(t, 'ada@acme.test', welcome.id, { firstname: 'Ada' });

    const list = await caught(t);
    expect(list).toMatchObject({ preferenceLinks: true, hasMore: false });
    expect(list.howToConfigure).toBeUndefined();
    expect(list.messages).toEqual([
      expect.objectContaining({
        to: 'ada@acme.test',
        subject: welcome.subject,
        campaignId: welcome.id,
        workflowId,
        workflowName: 'Thank leads',
        sentAt: t.clock.now,
        preferenceLink: true,
      }),
    ]);
    const message = (await inspect(t, `mail/${list.messages[0].id}?portal=${PORTAL}`)).json;
    expect(message.from).toBe('"portal 62515" <no-reply@example.invalid>');
    expect(message.text).toMatch(/^Hi Ada,\n/);
    expect(message.html).toContain('<p>Hi Ada,</p>');

    // The same link in the text and the HTML, to the companion's page, for this address.
    const link = /Manage your email preferences: (\S+)/.exec(message.text)![1];
    expect(message.html).toContain(`href="${link.replaceAll('&', '&#38;')}"`);
    expect(message.html).toMatch(/>Unsubscribe<\/a>/);
    const url = new URL(link);
    expect(url.origin + url.pathname).toBe(PAGE);
    expect(verify(SECRET, 'preferences', url.searchParams.get(PREFERENCE_TOKEN_PARAM), t.clock.now)).toEqual({
      ok: true,
      subject: 'ada@acme.test',
    });
    // Valid for 30 days, then not; never a CSRF token.
    expect(
      verify(SECRET, 'preferences', url.searchParams.get(PREFERENCE_TOKEN_PARAM), t.clock.now + 30 * 86_400_000),
    ).toEqual({ ok: false, reason: 'expired' });
    expect(verify(SECRET, 'csrf', url.searchParams.get(PREFERENCE_TOKEN_PARAM), t.clock.now).ok).toBe(false);

    // In the same transaction as its SENT event: one message per SENT.
    const sent = (
      await t.call('GET', `/email/public/v1/campaigns/${welcome.id}/events?recipient=ada@acme.test&eventType=SENT`)
    ).json.events;
    expect(sent).toHaveLength(1);
    expect(sent[0].created).toBe(message.sentAt);
  });

  it('catches no dropped email: an address that unsubscribed gets none', async () => {
    const newsletter = await campaignNamed(t, 'Weekly Newsletter #42');
    const before = (await caught(t)).messages.length;
    expect((await t.call('POST', '/contacts/v1/contact', { body: props({ email: 'gone@acme.test' }) })).status).toBe(
      200,
    );
    expect(
      (await t.call('PUT', '/email/public/v1/subscriptions/gone@acme.test', { body: { unsubscribeFromAll: true } }))
        .status,
    ).toBe(200);
    await mail(t, 'gone@acme.test', newsletter.id);
    const events = (await t.call('GET', `/email/public/v1/campaigns/${newsletter.id}/events?recipient=gone@acme.test`))
      .json.events;
    expect(events.map((e: { type: string }) => e.type)).toEqual(['PROCESSED', 'DROPPED']);
    const after = (await caught(t)).messages;
    expect(after).toHaveLength(before);
    expect(after.some((m: { to: string }) => m.to == 'gone@acme.test')).toBe(false);
  });

  it('renders hostile names and a huge subject inert: escaped, one line, cut short', async () => {
    const hostile = '<script>alert(1)</script><img src=x onerror=alert(2)>"\'&';
    const id = await createCampaign(
      t.platform.services.engine,
      PORTAL,
      {
        appId: 1,
        appName: 'Test',
        contentId: 999,
        name: hostile,
        subject: `Re: ${'<b>x</b> '.repeat(20_000)}\r\nBcc: victim@example.com`,
        type: 'AUTOMATED_EMAIL',
        numIncluded: 0,
        numQueued: 0,
        processingState: 'DONE',
        lastProcessingFinishedAt: null,
        body: `Hello ${hostile}\n\n<a href="javascript:alert(3)">click</a>`,
      },
      t.clock.now,
    );
    await t.platform.services.engine.run(
      sql<[string, number]>('UPDATE portals SET name = ? WHERE id = ?'),
      `Acme "Evil" ${hostile}`,
      PORTAL,
    );
    await mail(t, 'mallory@acme.test', id, { firstname: `${hostile}\r\nX-Injected: yes` });
    const [summary] = (await caught(t)).messages;
    expect(summary.to).toBe('mallory@acme.test');
    expect(summary.subject.length).toBeLessThanOrEqual(250);
    expect(summary.subject).not.toMatch(/[\r\n]/);
    expect(summary.from).not.toMatch(/[\r\n]/);
    expect(summary.from).toMatch(/^"Acme \\"Evil\\" .*" <no-reply@example\.invalid>$/);
    const m = (await inspect(t, `mail/${summary.id}?portal=${PORTAL}`)).json;
    // Nothing from the contact or the campaign is markup in the HTML.
    expect(m.html).not.toMatch(/<script|<img|<a href="javascript/i);
    expect(m.html).toContain('&#60;script&#62;alert(1)&#60;/script&#62;');
    expect(m.html.match(/<a /g)).toHaveLength(2); // the footer's two links only
    // The text keeps what was written, as text, and the greeting on one line.
    expect(m.text.split('\n')[0]).toBe(`Hi ${hostile} X-Injected: yes,`);
    await t.platform.services.engine.run(
      sql<[string, number]>('UPDATE portals SET name = ? WHERE id = ?'),
      'portal 62515',
      PORTAL,
    );
  });

  it('keeps only the newest messages of each portal', async () => {
    const welcome = await campaignNamed(t, 'Welcome email');
    for (let i = 0; i < KEEP + 2; i++) await mail(t, `reader${i}@acme.test`, welcome.id, {}, `Flow ${i}`);
    const { messages, hasMore } = await caught(t);
    expect(hasMore).toBe(false);
    expect(messages.map((m: { to: string }) => m.to)).toEqual([
      'reader6@acme.test',
      'reader5@acme.test',
      'reader4@acme.test',
      'reader3@acme.test',
      'reader2@acme.test',
    ]);
    // Newest first; the oldest are gone, not just hidden.
    const ids = messages.map((m: { id: number }) => m.id);
    expect(ids).toEqual([...ids].sort((a, b) => b - a));
    expect((await inspect(t, `mail/${ids.at(-1) - 1}?portal=${PORTAL}`)).status).toBe(404);
    const rows = await t.platform.services.engine.value(
      sql<[number], { n: number }>('SELECT count(*) AS n FROM email_outbox WHERE portal_id = ?'),
      PORTAL,
    );
    expect(Number(rows)).toBe(KEEP);
    // Another portal's messages are not this one's.
    expect((await inspect(t, `mail?portal=99999`)).json.messages).toEqual([]);
    expect((await inspect(t, `mail/${ids[0]}?portal=99999`)).status).toBe(404);
  });

  it("serves the mail page under the inspector's strict CSP, showing an email's HTML only in a sandboxed frame", async () => {
    const page = await t.call('GET', '/_inspector/mail.html', { portal: null });
    expect(page.status).toBe(200);
    expect(page.text).toContain('<script type="module" src="mail.js"></script>');
    expect(page.headers.get('content-security-policy')).toContain(
      "default-src 'none'; script-src 'self'; style-src 'self'",
    );
    const script = (await t.call('GET', '/_inspector/mail.js', { portal: null })).text;
    expect(script).not.toContain('innerHTML');
    // The email's HTML goes into a frame's srcdoc only, and the frame may run no script.
    expect(script).toContain("sandbox: 'allow-popups allow-popups-to-escape-sandbox'");
    expect(script).not.toMatch(/allow-scripts|allow-same-origin/);
    expect(script.match(/\.html\b/g)).toEqual(['.html']);
    expect(script).toContain('frame.srcdoc = m.html;');
  });

  it('answers only with the inspector key, and never shows the link secret', async () => {
    for (const key of [null, 'wrong-key', SECRET]) {
      for (const path of [`mail?portal=${PORTAL}`, `mail/1?portal=${PORTAL}`]) {
        const res = await inspect(t, path, key);
        expect(res.status).toBe(401);
        expect(res.text).not.toContain(SECRET);
      }
    }
    const list = await inspect(t, `mail?portal=${PORTAL}`);
    expect(list.text).not.toContain(SECRET);
    for (const m of list.json.messages)
      expect((await inspect(t, `mail/${m.id}?portal=${PORTAL}`)).text).not.toContain(SECRET);
    expect((await inspect(t, `mail/not-a-number?portal=${PORTAL}`)).status).toBe(404);
  });

  it('without preference links: emails carry none, and the mail view says how to configure them', async () => {
    const welcome = await campaignNamed(bare, 'Welcome email');
    await mail(bare, 'ada@acme.test', welcome.id, { firstname: 'Ada' });
    const list = await caught(bare);
    expect(list.preferenceLinks).toBe(false);
    expect(list.howToConfigure).toMatch(/SVC_PREFERENCES_URL and SVC_PREFERENCES_SECRET/);
    expect(list.messages).toEqual([expect.objectContaining({ to: 'ada@acme.test', preferenceLink: false })]);
    const m = (await inspect(bare, `mail/${list.messages[0].id}?portal=${PORTAL}`)).json;
    expect(m.text).not.toMatch(/https?:/);
    expect(m.text).toContain('No preference link');
    expect(m.html).not.toContain('<a ');
  });
});

describe('a message that cannot be kept', () => {
  it('is not sent: its events roll back with it, and the step fails', async () => {
    const p = await startPlatform({ portals: [{ id: PORTAL }] });
    try {
      await p.platform.services.workflows.stop();
      await seedEmailDefaults(p.platform.services.engine, PORTAL, p.clock.now);
      const welcome = await campaignNamed(p, 'Welcome email');
      await p.platform.services.engine.exec('DROP TABLE email_outbox');
      const workflowId = await mail(p, 'ada@acme.test', welcome.id);
      const events = (await p.call('GET', `/email/public/v1/campaigns/${welcome.id}/events?recipient=ada@acme.test`))
        .json.events;
      expect(events).toEqual([]);
      const { vid } = (await p.call('GET', '/contacts/v1/contact/email/ada@acme.test/profile')).json;
      const log = (await p.call('GET', `/automation/v2/workflows/${workflowId}/logevents/contacts/${vid}/past`)).json;
      expect(log[0]).toMatchObject({ eventType: 'FAILED', stepId: 0 });
    } finally {
      await p.close();
    }
  });
});

describe('the preference links setting', () => {
  it('refuses a bad page address or a short secret, naming the option and never the secret', () => {
    const open = (preferenceLinks: { url: string; secret: string; ttlMs?: number }) => () =>
      createPlatform({ database: ':memory:', logger: false, preferenceLinks });
    expect(open({ url: 'javascript:alert(1)', secret: SECRET })).toThrow(
      /preferenceLinks\.url \(SVC_PREFERENCES_URL\) must be the http or https address/,
    );
    expect(open({ url: '/svc/preferences', secret: SECRET })).toThrow(/preferenceLinks\.url/);
    const short = 'short-secret-123';
    let message = '';
    try {
      open({ url: PAGE, secret: short })();
    } catch (err) {
      message = (err as Error).message;
    }
    expect(message).toMatch(/preferenceLinks\.secret \(SVC_PREFERENCES_SECRET\) must be .* at least 32 characters/);
    expect(message).not.toContain(short);
    expect(open({ url: PAGE, secret: SECRET, ttlMs: -1 })).toThrow(/ttlMs/);
  });
});
