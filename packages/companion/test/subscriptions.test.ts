/** The preference centre against the real platform: an identified visitor or a signed link,
 * expired / tampered / malformed links, CSRF (token, origin, content type), per-type changes,
 * unsubscribe from all, the page and its assets, and nothing personal in answers or logs; through
 * both doors. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createCompanion } from '../src';
import { seedEmailDefaults } from '../../platform/src/store/email-seed';
import {
  call,
  forEachDoor,
  identifiedVisitor,
  mountOn,
  newUtk,
  startTestPlatform,
  tempDir,
  type Mounted,
  type TestPlatform,
} from './harness';

forEachDoor((door) => {
  let t: TestPlatform;
  let m: Mounted;
  const ada = newUtk();
  const LINK_SECRET = 'link-signing-key-of-the-site-0123456789';
  const DAY = 86_400_000;
  let typeIds: number[];

  beforeAll(async () => {
    t = await startTestPlatform();
    await seedEmailDefaults(t.platform.services.engine, t.portals[0].portalId, t.clock.now);
    typeIds = (await t.call('GET', '/email/public/v1/subscriptions')).json.subscriptionDefinitions
      .filter((d: { active: boolean }) => d.active)
      .map((d: { id: number }) => d.id);
    await identifiedVisitor(t, ada, { email: 'ada@example.com', firstname: 'Ada' });
    m = await mountOn(
      t,
      {
        publicUrl: 'https://www.example.com/svc/',
        allowedOrigins: ['https://www.example.com'],
        subscriptions: { linkSecret: LINK_SECRET },
      },
      { door },
    );
  });
  afterAll(async () => {
    await m.close();
    await t.close();
  });

  const tokenOf = (link: string) => new URL(link).searchParams.get('token')!;
  const status = async (email: string) =>
    (await t.call('GET', `/email/public/v1/subscriptions/${encodeURIComponent(email)}`)).json;

  describe('as an identified visitor', () => {
    it('reads the types and this person\u2019s statuses, with the email masked', async () => {
      const r = await call(`${m.url}/subscriptions`, { cookie: `svcutk=${ada}` });
      expect(r.status).toBe(200);
      expect(r.json.email).toBe('a•••@example.com');
      expect(r.json.unsubscribedFromAll).toBe(false);
      expect(r.json.types.map((x: { id: number }) => x.id)).toEqual(typeIds);
      expect(r.json.types.every((x: { subscribed: boolean }) => x.subscribed)).toBe(true);
      expect(r.json.csrfToken).toEqual(expect.any(String));
      expect(r.text).not.toContain('ada@example.com');
    });

    it('changes one type with the CSRF token', async () => {
      const { json } = await call(`${m.url}/subscriptions`, { cookie: `svcutk=${ada}` });
      const r = await call(`${m.url}/subscriptions`, {
        method: 'PUT',
        cookie: `svcutk=${ada}`,
        headers: { 'x-csrf-token': json.csrfToken, origin: 'https://www.example.com' },
        body: { subscriptions: [{ id: typeIds[0], subscribed: false }] },
      });
      expect(r.status).toBe(200);
      expect(r.json.types.find((x: { id: number }) => x.id == typeIds[0]).subscribed).toBe(false);
      expect((await status('ada@example.com')).subscriptionStatuses).toContainEqual(
        expect.objectContaining({ id: typeIds[0], subscribed: false }),
      );
    });

    it('reads the preference link from the query as sent, and refuses a token given twice', async () => {
      const token = tokenOf(m.companion.links.preferences('twice@example.com'));
      expect((await call(`${m.url}/subscriptions?token=${token}&token=${token}`)).status).toBe(401);
      expect((await call(`${m.url}/subscriptions?x=1&token=${token}`)).status).toBe(200);
    });

    it('refuses an unknown or opted-out visitor', async () => {
      for (const cookie of [undefined, `svcutk=${newUtk()}`, `svcutk=${ada}; __svc_opt_out=yes`, 'svcutk=forged']) {
        const r = await call(`${m.url}/subscriptions`, { cookie });
        expect(r.status, cookie).toBe(401);
        expect(r.json.message).toBe('open the preference centre through the link in one of our emails');
      }
    });
  });

  describe('CSRF', () => {
    const put = (
      headers: Record<string, string>,
      body: unknown = { subscriptions: [{ id: typeIds[1], subscribed: false }] },
    ) => call(`${m.url}/subscriptions`, { method: 'PUT', cookie: `svcutk=${ada}`, headers, body });
    let csrf: string;
    beforeAll(async () => {
      csrf = (await call(`${m.url}/subscriptions`, { cookie: `svcutk=${ada}` })).json.csrfToken;
    });

    it('refuses a change without the token, with another person\u2019s, or with a forged one', async () => {
      const grace = tokenOf(m.companion.links.preferences('grace@example.com'));
      const graceCsrf = (await call(`${m.url}/subscriptions?token=${grace}`)).json.csrfToken;
      for (const token of [
        undefined,
        graceCsrf,
        csrf.slice(0, -2) + 'xx',
        'abc',
        tokenOf(m.companion.links.preferences('ada@example.com')),
      ]) {
        const r = await put(token ? { 'x-csrf-token': token } : {});
        expect(r.status, String(token)).toBe(403);
        expect(r.json.message).toMatch(/CSRF token/);
      }
      expect(
        (await status('ada@example.com')).subscriptionStatuses.find((s: { id: number }) => s.id == typeIds[1]),
      ).toBeUndefined();
    });

    it('refuses a foreign origin and a non-JSON body', async () => {
      const foreign = await put({ 'x-csrf-token': csrf, origin: 'https://evil.example' });
      expect(foreign.status).toBe(403);
      expect(foreign.json.message).toBe('this origin may not change preferences');
      const nullOrigin = await put({ 'x-csrf-token': csrf, origin: 'null' });
      expect(nullOrigin.status).toBe(403);
      const form = await put(
        { 'x-csrf-token': csrf, 'content-type': 'application/x-www-form-urlencoded' },
        'subscriptions=1',
      );
      expect(form.status).toBe(415);
    });

    it('refuses an expired CSRF token', async () => {
      t.clock.now += 3 * 60 * 60 * 1000;
      const r = await put({ 'x-csrf-token': csrf });
      expect(r.status).toBe(403);
    });

    it('accepts the page\u2019s own origin, https behind a TLS-terminating proxy included', async () => {
      const fresh = (await call(`${m.url}/subscriptions`, { cookie: `svcutk=${ada}` })).json.csrfToken;
      const host = new URL(m.url).host;
      for (const origin of [`http://${host}`, `https://${host}`]) {
        const r = await put(
          { 'x-csrf-token': fresh, origin },
          { subscriptions: [{ id: typeIds[2] ?? typeIds[0], subscribed: true }] },
        );
        expect(r.status, origin).toBe(200);
      }
    });

    it('names the problem in a bad body', async () => {
      const fresh = (await call(`${m.url}/subscriptions`, { cookie: `svcutk=${ada}` })).json.csrfToken;
      const cases: [unknown, RegExp][] = [
        [{ subscriptions: [{ id: 999_999, subscribed: false }] }, /subscriptions\[0\]\.id: is not a subscription type/],
        [
          { subscriptions: [{ id: typeIds[0], subscribed: 'no' }] },
          /subscriptions\[0\]\.subscribed: must be true or false/,
        ],
        [{ subscriptions: [] }, /body\.subscriptions: must be a list/],
        [{ unsubscribeFromAll: false }, /body\.unsubscribeFromAll: must be true/],
        [{ email: 'someone@else.com' }, /body\.email: is not a field/],
        [[1, 2], /body: must be a JSON object/],
      ];
      for (const [body, message] of cases) {
        const r = await put({ 'x-csrf-token': fresh }, body);
        expect(r.status, JSON.stringify(body)).toBe(400);
        expect(r.json.message).toMatch(message);
      }
    });
  });

  describe('preference links', () => {
    it('open the preference centre of the address they were made for', async () => {
      const link = m.companion.links.preferences('grace+news@example.com');
      expect(link).toMatch(/^https:\/\/www\.example\.com\/svc\/preferences\?token=[\w-]{40,}$/);
      const token = tokenOf(link);
      const r = await call(`${m.url}/subscriptions?token=${token}`);
      expect(r.status).toBe(200);
      expect(r.json.email).toBe('g•••@example.com');
      const change = await call(`${m.url}/subscriptions?token=${token}`, {
        method: 'PUT',
        headers: { 'x-csrf-token': r.json.csrfToken },
        body: { subscriptions: [{ id: typeIds[1], subscribed: false }] },
      });
      expect(change.status).toBe(200);
      expect((await status('grace+news@example.com')).subscriptionStatuses).toContainEqual(
        expect.objectContaining({ id: typeIds[1], subscribed: false }),
      );
    });

    it('refuse tampered, malformed, foreign-key and expired tokens', async () => {
      const token = tokenOf(m.companion.links.preferences('grace@example.com', { ttlMs: DAY }));
      // The link is sealed: the address is not readable from it.
      expect(Buffer.from(token, 'base64url').toString('latin1')).not.toContain('grace');
      const flip = (s: string, i: number) => s.slice(0, i) + (s[i] == 'A' ? 'B' : 'A') + s.slice(i + 1);
      const foreign = createCompanion({
        baseUrl: t.baseUrl,
        auth: { accessToken: 'x' },
        logger: false,
        publicUrl: 'https://x.test',
        subscriptions: { linkSecret: 'another-key-another-key-another-key' },
        events: { outboxFile: `${tempDir()}/o`, handleSigterm: false },
      });
      const foreignToken = tokenOf(foreign.links.preferences('ada@example.com'));
      await foreign.close();
      const csrfAsLink = (await call(`${m.url}/subscriptions?token=${token}`)).json.csrfToken;
      for (const bad of [
        flip(token, 5),
        flip(token, 30),
        flip(token, token.length - 3),
        token.slice(0, -4),
        `${token}.x`,
        'x'.repeat(3000),
        '%00',
        'AAAA',
        foreignToken,
        csrfAsLink,
      ]) {
        const r = await call(`${m.url}/subscriptions?token=${encodeURIComponent(bad)}`);
        expect(r.status, bad.slice(0, 20)).toBe(401);
        expect(r.json.message).toBe('this preference link is not valid');
      }
      t.clock.now += DAY + 1;
      const expired = await call(`${m.url}/subscriptions?token=${token}`);
      expect(expired.status).toBe(401);
      expect(expired.json.message).toBe('this preference link has expired; use the link in a newer email');
    });

    it('need publicUrl and an address', () => {
      const bare = createCompanion({
        baseUrl: t.baseUrl,
        auth: { accessToken: 'x' },
        logger: false,
        events: { outboxFile: `${tempDir()}/o`, handleSigterm: false },
      });
      expect(() => bare.links.preferences('a@b.co')).toThrow(/publicUrl/);
      expect(() => m.companion.links.preferences('nobody')).toThrow(/email address/);
      return bare.close();
    });
  });

  describe('unsubscribe from all', () => {
    it('unsubscribes every type, and cannot be undone here', async () => {
      const token = tokenOf(m.companion.links.preferences('leaving@example.com'));
      const { json } = await call(`${m.url}/subscriptions?token=${token}`);
      const headers = { 'x-csrf-token': json.csrfToken };
      const r = await call(`${m.url}/subscriptions?token=${token}`, {
        method: 'PUT',
        headers,
        body: { unsubscribeFromAll: true },
      });
      expect(r.status).toBe(200);
      expect(r.json.unsubscribedFromAll).toBe(true);
      expect(r.json.types.every((x: { subscribed: boolean }) => !x.subscribed)).toBe(true);
      expect((await status('leaving@example.com')).unsubscribeFromPortal).toBe(true);
      const back = await call(`${m.url}/subscriptions?token=${token}`, {
        method: 'PUT',
        headers,
        body: { subscriptions: [{ id: typeIds[0], subscribed: true }] },
      });
      expect(back.status).toBe(409);
    });
  });

  describe('the page', () => {
    it('serves the preference centre, its script and its style under the default CSP', async () => {
      const page = await call(`${m.url}/preferences?token=abc`);
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(page.text).toContain('<script src="preferences.js" defer></script>');
      expect(page.text).toContain('class="svc-form"');
      expect(page.text).not.toMatch(/<script>|style=/);
      expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
      expect(page.headers.get('content-security-policy')).not.toContain('upgrade-insecure-requests');
      const js = await call(`${m.url}/preferences.js`);
      expect(js.headers.get('content-type')).toMatch(/javascript/);
      expect(js.text).toContain("'x-csrf-token': csrf");
      expect((await call(`${m.url}/preferences.css`)).headers.get('content-type')).toMatch(/text\/css/);
    });

    it('links back to the site (/ by default) and offers no sign-up page unless given one', async () => {
      const page = await call(`${m.url}/preferences`);
      expect(page.text).toContain('<p class="svc-back"><a href="/">← Back to the site</a></p>');
      expect(page.text).toContain('<div class="svc-unknown" hidden>');
      expect(page.text).not.toContain('svc-sign-up');
    });

    it('takes the site and sign-up addresses from the options, escaped, and refuses any that would leave http(s)', async () => {
      const linked = await mountOn(
        t,
        {
          subscriptions: {
            linkSecret: LINK_SECRET,
            siteUrl: 'https://www.example.com/?a=1&b="2"',
            signUpUrl: '/contact',
          },
        },
        { door },
      );
      try {
        const page = await call(`${linked.url}/preferences`);
        expect(page.text).toContain('<a href="https://www.example.com/?a=1&#38;b=&#34;2&#34;">← Back to the site</a>');
        expect(page.text).toContain('<a class="svc-sign-up" href="/contact">tell us who you are</a>');
      } finally {
        await linked.close();
      }
      for (const [name, value] of [
        ['siteUrl', 'javascript:alert(1)'],
        ['siteUrl', '//evil.test/'],
        ['signUpUrl', '/\\evil.test'],
        ['signUpUrl', 'data:text/html,x'],
      ])
        expect(() =>
          createCompanion({
            baseUrl: t.baseUrl,
            auth: { accessToken: 'x' },
            logger: false,
            subscriptions: { linkSecret: LINK_SECRET, [name]: value },
          }),
        ).toThrow(`subscriptions.${name} must be a path on the site (/…) or an http(s) URL, not "${value}"`);
    });
  });

  it('logs no email, link token or CSRF token', () => {
    const logs = m.logs.text();
    expect(logs).not.toMatch(/@example\.com/);
    expect(logs).not.toContain(LINK_SECRET);
    expect(logs).not.toMatch(/[\w-]{60,}/);
  });
});
