/** getVisitor: who the visitor of a server-rendered page is, from the `Cookie` header or a cookie
 * store such as Next.js's `cookies()`, answering what GET /visitor answers from the same cache, on
 * the real platform. The module-level form asks the companion created last. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getVisitor as getVisitorMain, HttpError } from '../src';
import { getVisitor } from '../src/fetch';
import {
  call,
  identifiedVisitor,
  mount,
  mountOn,
  newUtk,
  startTestPlatform,
  type Mounted,
  type TestPlatform,
} from './harness';

/** What Next.js's `cookies()` returns, as far as getVisitor reads it. */
const cookieStore = (cookies: Record<string, string>) => ({
  get: (name: string) => (name in cookies ? { name, value: cookies[name] } : undefined),
  has: (name: string) => name in cookies,
});

let t: TestPlatform;
let m: Mounted;
const ada = newUtk();
let lookups = 0;

beforeAll(async () => {
  t = await startTestPlatform();
  await identifiedVisitor(t, ada, { email: 'ada@example.com', firstname: 'Ada', lastname: 'Lovelace' });
  m = await mountOn(t, {}, { door: 'fetch' });
  const original = m.companion.client.contacts.getByUtk;
  m.companion.client.contacts.getByUtk = (...args: Parameters<typeof original>) => (lookups++, original(...args));
});
afterAll(async () => {
  await m.close();
  await t.close();
});

describe('companion.getVisitor', () => {
  it('answers from the Cookie header what GET /visitor answers', async () => {
    const route = await call(`${m.url}/visitor`, { cookie: `theme=dark; svcutk=${ada}` });
    expect(await m.companion.getVisitor(`theme=dark; svcutk=${ada}`)).toEqual(route.json);
    expect(route.json).toEqual({
      known: true,
      vid: expect.any(Number),
      properties: { firstname: 'Ada', lastname: 'Lovelace' },
    });
  });

  it('answers from a cookie store like the one Next.js cookies() returns, or a Map', async () => {
    expect(await m.companion.getVisitor(cookieStore({ svcutk: ada }))).toMatchObject({
      known: true,
      properties: { firstname: 'Ada' },
    });
    expect(await m.companion.getVisitor(new Map([['svcutk', ada]]))).toMatchObject({ known: true });
    expect(await m.companion.getVisitor(cookieStore({}))).toEqual({ known: false });
  });

  it('answers {known:false} without a platform call for no cookie, a malformed one, or a visitor who opted out', async () => {
    const before = lookups;
    for (const [i, cookies] of [
      undefined,
      null,
      '',
      'svcutk=nope',
      `svcutk=${ada.toUpperCase()}`,
      `svcutk=${ada}; __svc_opt_out=yes`,
      cookieStore({ svcutk: ada, __svc_opt_out: 'yes' }),
    ].entries())
      expect(await m.companion.getVisitor(cookies), `case ${i}`).toEqual({ known: false });
    expect(lookups).toBe(before);
  });

  it('shares the route\u2019s cache: one platform lookup for the route and the page, until the TTL passes', async () => {
    const grace = newUtk();
    await identifiedVisitor(t, grace, { email: 'grace@example.com', firstname: 'Grace' });
    const before = lookups;
    expect(await m.companion.getVisitor(`svcutk=${grace}`)).toMatchObject({ known: true });
    expect((await call(`${m.url}/visitor`, { cookie: `svcutk=${grace}` })).json).toMatchObject({ known: true });
    expect(await m.companion.getVisitor(cookieStore({ svcutk: grace }))).toMatchObject({ known: true });
    expect(lookups).toBe(before + 1);
    t.clock.now += 31_000;
    await m.companion.getVisitor(`svcutk=${grace}`);
    expect(lookups).toBe(before + 2);
  });

  it('refuses what is neither a Cookie header nor a cookie store', async () => {
    await expect(m.companion.getVisitor(42 as never)).rejects.toThrow(/Cookie header or a cookie store/);
  });

  it('rejects with the route\u2019s neutral error when the platform fails', async () => {
    const down = await mount(
      { baseUrl: 'http://127.0.0.1:9', auth: { accessToken: 'svc-pat-secret-token' } },
      { door: 'fetch' },
    );
    try {
      const e = await down.companion.getVisitor(`svcutk=${newUtk()}`).catch((err: unknown) => err);
      expect(e).toBeInstanceOf(HttpError);
      expect(e).toMatchObject({ status: 502, message: 'the platform could not answer' });
    } finally {
      await down.close();
    }
  });
});

describe('getVisitor (the module-level form)', () => {
  it('asks the companion created last, from either entry, and the one given when given', async () => {
    const other = await mountOn(t, { visitor: { properties: ['email'] } }, { door: 'express' });
    try {
      // `other` is the last one created: it answers with its allow-list.
      expect(await getVisitor(`svcutk=${ada}`)).toMatchObject({ properties: { email: 'ada@example.com' } });
      expect(await getVisitorMain(cookieStore({ svcutk: ada }))).toMatchObject({
        properties: { email: 'ada@example.com' },
      });
      expect(await getVisitor(`svcutk=${ada}`, m.companion)).toMatchObject({ properties: { firstname: 'Ada' } });
    } finally {
      await other.close();
    }
    // Closed, it is no longer asked: the one before it is.
    expect(await getVisitor(`svcutk=${ada}`)).toMatchObject({ properties: { firstname: 'Ada', lastname: 'Lovelace' } });
  });
});
