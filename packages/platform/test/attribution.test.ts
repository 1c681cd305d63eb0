/** Where contacts come from, over HTTP: real collector batches with real page URLs and
 * referrers, then the contact read back. One test per rule of the README's attribution table,
 * then sessions (timeout, campaign change, counts), anonymous history at identify and at a form
 * submission, contacts made through the API (OFFLINE) and the events API's given source. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sql } from '../src/db/engine';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform();
});
afterAll(() => t.close());

const PORTAL = '62515';
const MIN = 60_000;
let n = 0;
const hex = () => (++n).toString(16).padStart(32, '0');
/** A new visitor token. */
const visitor = () => (++n).toString(16).padStart(32, 'c');

const view = (vi: string, pu: string, r: string | undefined, at: number, extra: Record<string, string> = {}) => ({
  eid: hex(),
  k: '1',
  a: PORTAL,
  v: '1',
  cts: String(at),
  pu,
  t: 'Page',
  po: new URL(pu).pathname,
  vi,
  ...(r === undefined ? {} : { r }),
  ...extra,
});
/** Sends a batch once its events have happened (the collector dates none after it arrives). */
async function collect(...batch: object[]) {
  t.clock.now = Math.max(t.clock.now, ...batch.map((e) => Number((e as { cts: string }).cts)));
  const res = await t.call('POST', '/collect/e', {
    body: JSON.stringify(batch),
    headers: { 'content-type': 'text/plain' },
    portal: null,
  });
  expect(res.json).toMatchObject({ accepted: batch.length, rejected: [] });
}
async function contact(email: string) {
  const res = await t.call('GET', `/contacts/v1/contact/email/${email}/profile?propertyMode=value_only`);
  expect(res.status).toBe(200);
  return Object.fromEntries(
    Object.entries(res.json.properties as Record<string, { value: string }>).map(([k, v]) => [k, v.value]),
  );
}
const source = (p: Record<string, string>) => [
  p.svc_analytics_source,
  p.svc_analytics_source_data_1 ?? null,
  p.svc_analytics_source_data_2 ?? null,
];
const latest = (p: Record<string, string>) => [
  p.svc_analytics_latest_source,
  p.svc_analytics_latest_source_data_1 ?? null,
  p.svc_analytics_latest_source_data_2 ?? null,
];

/** A visitor lands on `url` from `referrer`, reads a second page, and identifies there: the
 * contact's original and latest source. */
async function landing(url: string, referrer: string | undefined) {
  const vi = visitor();
  const email = `${vi.slice(-8)}@visitors.test`;
  const at = (t.clock.now += 60 * MIN);
  await collect(
    view(vi, url, referrer, at),
    view(vi, 'https://acme.test/pricing', url, at + MIN, { i: `email=${encodeURIComponent(email)}` }),
  );
  const p = await contact(email);
  expect(latest(p)).toEqual(source(p));
  return source(p);
}

describe('attribution rules (README, "Attribution"): one test per rule', () => {
  it('1. an email link (utm_medium=email) is EMAIL_MARKETING: campaign, content', async () => {
    expect(
      await landing(
        'https://acme.test/offer?utm_source=newsletter&utm_medium=email&utm_campaign=spring-sale&utm_content=hero',
        undefined,
      ),
    ).toEqual(['EMAIL_MARKETING', 'spring-sale', 'hero']);
  });

  it("1. a link of the platform's own emails (_svcenc) is EMAIL_MARKETING, whatever the webmail referrer", async () => {
    expect(
      await landing(
        'https://acme.test/offer?_svcenc=p2ANqtz-abc&_svcmi=42&utm_campaign=welcome',
        'https://mail.google.com/',
      ),
    ).toEqual(['EMAIL_MARKETING', 'welcome', null]);
  });

  it('2. a search ad click id (gclid) is PAID_SEARCH: the engine, the keyword', async () => {
    expect(
      await landing(
        'https://acme.test/?gclid=Cj0KCQ&utm_term=blue+widgets&utm_campaign=brand',
        'https://www.google.com/',
      ),
    ).toEqual(['PAID_SEARCH', 'Google', 'blue widgets']);
    expect(await landing('https://acme.test/?msclkid=5f3a', 'https://www.bing.com/')).toEqual([
      'PAID_SEARCH',
      'Bing',
      null,
    ]);
  });

  it('3. a social ad click id (li_fat_id, ttclid) is PAID_SOCIAL: the network, the campaign', async () => {
    expect(
      await landing('https://acme.test/demo?li_fat_id=8a7b&utm_campaign=q3-abm', 'https://www.linkedin.com/'),
    ).toEqual(['PAID_SOCIAL', 'LinkedIn', 'q3-abm']);
    expect(await landing('https://acme.test/demo?ttclid=E.C.P', undefined)).toEqual(['PAID_SOCIAL', 'TikTok', null]);
  });

  it('4. a paid medium from a social network (utm_source) is PAID_SOCIAL', async () => {
    expect(
      await landing('https://acme.test/?utm_source=facebook&utm_medium=cpc&utm_campaign=retarget', undefined),
    ).toEqual(['PAID_SOCIAL', 'Facebook', 'retarget']);
    expect(
      await landing('https://acme.test/?utm_source=ig&utm_medium=paid_social&utm_campaign=reels', undefined),
    ).toEqual(['PAID_SOCIAL', 'ig', 'reels']);
  });

  it('5. a paid medium from a search engine (utm_source or referrer) is PAID_SEARCH', async () => {
    expect(
      await landing(
        'https://acme.test/?utm_source=google&utm_medium=cpc&utm_campaign=generic&utm_term=widgets',
        undefined,
      ),
    ).toEqual(['PAID_SEARCH', 'Google', 'widgets']);
    expect(await landing('https://acme.test/?utm_medium=ppc&utm_campaign=generic', 'https://duckduckgo.com/')).toEqual([
      'PAID_SEARCH',
      'DuckDuckGo',
      'generic',
    ]);
  });

  it('6. utm_medium=organic from a search engine is ORGANIC_SEARCH', async () => {
    expect(await landing('https://acme.test/?utm_source=bing&utm_medium=organic', undefined)).toEqual([
      'ORGANIC_SEARCH',
      'Bing',
      null,
    ]);
  });

  it('7. a social medium, or a social link id (fbclid), is SOCIAL_MEDIA: the network, the campaign', async () => {
    expect(
      await landing('https://acme.test/?utm_source=linkedin&utm_medium=social&utm_campaign=launch', undefined),
    ).toEqual(['SOCIAL_MEDIA', 'LinkedIn', 'launch']);
    expect(await landing('https://acme.test/blog/post?fbclid=IwAR3x', 'https://l.facebook.com/')).toEqual([
      'SOCIAL_MEDIA',
      'Facebook',
      null,
    ]);
  });

  it('8. any other utm_* is OTHER_CAMPAIGNS: the campaign, the medium', async () => {
    expect(
      await landing(
        'https://acme.test/?utm_source=partner-site&utm_medium=banner&utm_campaign=autumn',
        'https://partner.example/',
      ),
    ).toEqual(['OTHER_CAMPAIGNS', 'autumn', 'banner']);
    expect(await landing('https://acme.test/?utm_source=podcast', undefined)).toEqual([
      'OTHER_CAMPAIGNS',
      'podcast',
      null,
    ]);
  });

  it("9. a referrer on the site's own domain is not a source: the visit's source stays the one it began with", async () => {
    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    await collect(
      view(vi, 'https://acme.test/', 'https://www.google.de/', at),
      view(vi, 'https://shop.acme.test/cart', 'https://blog.acme.test/post', at + MIN),
      view(vi, 'https://acme.test/thanks', 'https://acme.test/', at + 2 * MIN, { i: 'email=own%40visitors.test' }),
    );
    const p = await contact('own@visitors.test');
    expect(source(p)).toEqual(['ORGANIC_SEARCH', 'Google', null]);
    expect(p.svc_analytics_num_visits).toBe('1');
  });

  it("9. …and so is one of the portal's own domains (setting svc_tracking_domains)", async () => {
    expect(
      (
        await t.call('POST', '/settings/v1/settings', {
          body: { name: 'svc_tracking_domains', value: 'acme-shop.example, acme.help' },
        })
      ).status,
    ).toBeLessThan(300);
    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    await collect(
      view(vi, 'https://acme.test/', 'https://news.ycombinator.com/item?id=1', at),
      view(vi, 'https://acme.test/pricing', 'https://www.acme-shop.example/basket', at + MIN),
      view(vi, 'https://acme.test/docs', 'https://docs.acme.help/start', at + 2 * MIN, {
        i: 'email=owndomains%40visitors.test',
      }),
    );
    const p = await contact('owndomains@visitors.test');
    expect(source(p)).toEqual(['SOCIAL_MEDIA', 'Hacker News', 'https://news.ycombinator.com/item?id=1']);
    expect(p.svc_analytics_num_visits).toBe('1');
    // Without the setting, the same referrer is a referral.
    expect((await t.call('DELETE', '/settings/v1/settings?name=svc_tracking_domains')).status).toBeLessThan(300);
    expect(await landing('https://acme.test/', 'https://www.acme-shop.example/basket')).toEqual([
      'REFERRALS',
      'acme-shop.example',
      'https://www.acme-shop.example/basket',
    ]);
  });

  it('10. a search engine referrer is ORGANIC_SEARCH: the engine (any country site), the keyword when it is sent', async () => {
    expect(await landing('https://acme.test/', 'https://www.google.co.uk/')).toEqual([
      'ORGANIC_SEARCH',
      'Google',
      null,
    ]);
    expect(await landing('https://acme.test/', 'https://search.yahoo.com/search?p=acme+widgets')).toEqual([
      'ORGANIC_SEARCH',
      'Yahoo',
      'acme widgets',
    ]);
  });

  it('11. a social network referrer is SOCIAL_MEDIA: the network, the referring URL', async () => {
    expect(await landing('https://acme.test/', 'https://t.co/abc123')).toEqual([
      'SOCIAL_MEDIA',
      'X (Twitter)',
      'https://t.co/abc123',
    ]);
  });

  it('12. any other referrer is REFERRALS: the referring site, its URL', async () => {
    expect(await landing('https://acme.test/', 'https://www.widget-reviews.example/best-2026')).toEqual([
      'REFERRALS',
      'widget-reviews.example',
      'https://www.widget-reviews.example/best-2026',
    ]);
  });

  it('13. no referrer and no campaign is DIRECT_TRAFFIC: the landing page', async () => {
    expect(await landing('https://acme.test/pricing?plan=pro', undefined)).toEqual([
      'DIRECT_TRAFFIC',
      'https://acme.test/pricing',
      null,
    ]);
    expect(await landing('https://acme.test/pricing', '')).toEqual([
      'DIRECT_TRAFFIC',
      'https://acme.test/pricing',
      null,
    ]);
  });

  it('14. a contact made through the contacts API is OFFLINE (API); later visits are its latest source, not its original', async () => {
    const made = await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: 'offline@visitors.test' }] },
    });
    expect(made.status).toBe(200);
    let p = await contact('offline@visitors.test');
    expect(source(p)).toEqual(['OFFLINE', 'API', null]);
    expect(latest(p)).toEqual(['OFFLINE', 'API', null]);

    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    await collect(view(vi, 'https://acme.test/', 'https://www.bing.com/', at, { i: 'email=offline%40visitors.test' }));
    p = await contact('offline@visitors.test');
    expect(source(p)).toEqual(['OFFLINE', 'API', null]);
    expect(latest(p)).toEqual(['ORGANIC_SEARCH', 'Bing', null]);
    expect(p.svc_analytics_num_visits).toBe('1');
  });
});

describe('sessions', () => {
  it('a new session after 30 minutes without a page view; counts, average and session times', async () => {
    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    await collect(
      view(vi, 'https://acme.test/', 'https://www.google.com/', at),
      view(vi, 'https://acme.test/a', 'https://acme.test/', at + 10 * MIN),
      view(vi, 'https://acme.test/b', 'https://acme.test/a', at + 40 * MIN), // 30 min after the last: same session
      view(vi, 'https://acme.test/c', 'https://acme.test/b', at + 71 * MIN, { i: 'email=timeout%40visitors.test' }), // 31 min: a new one
    );
    const p = await contact('timeout@visitors.test');
    expect(p).toMatchObject({
      svc_analytics_num_visits: '2',
      svc_analytics_num_page_views: '4',
      svc_analytics_average_page_views: '2',
      svc_analytics_first_session_timestamp: String(at),
      svc_analytics_last_session_timestamp: String(at + 71 * MIN),
      svc_analytics_first_referrer: 'https://www.google.com/',
      svc_analytics_last_referrer: 'https://www.google.com/',
    });
    // The second session began on a page reached from the site (an open tab): direct.
    expect(source(p)).toEqual(['ORGANIC_SEARCH', 'Google', null]);
    expect(latest(p)).toEqual(['DIRECT_TRAFFIC', 'https://acme.test/c', null]);

    const rows = await t.platform.services.engine.all(
      sql<
        [string],
        {
          started_at: number;
          last_at: number;
          page_views: number;
          source: string;
          referrer: string | null;
          landing_url: string;
          vid: number | null;
        }
      >(
        'SELECT started_at, last_at, page_views, source, referrer, landing_url, vid FROM sessions WHERE utk = ? ORDER BY started_at',
      ),
      vi,
    );
    expect(rows.map(({ vid, ...r }) => ({ ...r, linked: vid !== null }))).toEqual([
      {
        started_at: at,
        last_at: at + 40 * MIN,
        page_views: 3,
        source: 'ORGANIC_SEARCH',
        referrer: 'https://www.google.com/',
        landing_url: 'https://acme.test/',
        linked: true,
      },
      {
        started_at: at + 71 * MIN,
        last_at: at + 71 * MIN,
        page_views: 1,
        source: 'DIRECT_TRAFFIC',
        referrer: null,
        landing_url: 'https://acme.test/c',
        linked: true,
      },
    ]);
  });

  it('a new session when the campaign changes, not when the visitor comes back directly or from the site', async () => {
    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    await collect(
      view(vi, 'https://acme.test/?utm_campaign=spring&utm_source=partner', undefined, at),
      view(vi, 'https://acme.test/a', undefined, at + MIN), // typed in: same session
      view(vi, 'https://acme.test/?utm_campaign=summer&utm_source=partner', undefined, at + 2 * MIN), // another campaign
      view(vi, 'https://acme.test/b', 'https://acme.test/', at + 3 * MIN),
      view(vi, 'https://acme.test/c', 'https://www.widgets.example/list', at + 4 * MIN, {
        i: 'email=campaigns%40visitors.test',
      }), // a referral
    );
    const p = await contact('campaigns@visitors.test');
    expect(p.svc_analytics_num_visits).toBe('3');
    expect(p.svc_analytics_average_page_views).toBe('1.67');
    expect(source(p)).toEqual(['OTHER_CAMPAIGNS', 'spring', null]);
    expect(latest(p)).toEqual(['REFERRALS', 'widgets.example', 'https://www.widgets.example/list']);
    expect(p.svc_analytics_first_referrer).toBe('https://www.widgets.example/list');
    expect(p.svc_analytics_last_session_timestamp).toBe(String(at + 4 * MIN));
  });

  it('a new session once one would last 12 hours, however busy (a tab that reloads itself all day)', async () => {
    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    // A page view every 20 minutes for 13 hours, the last one identifying.
    const views = Array.from({ length: 40 }, (_, i) =>
      view(
        vi,
        `https://acme.test/live?${i}`,
        i ? 'https://acme.test/live' : 'https://www.google.com/',
        at + i * 20 * MIN,
      ),
    );
    Object.assign(views.at(-1)!, { i: 'email=kiosk%40visitors.test' });
    for (let i = 0; i < views.length; i += 10) await collect(...views.slice(i, i + 10));
    const rows = await t.platform.services.engine.all(
      sql<[string], { started_at: number; last_at: number; page_views: number; source: string }>(
        'SELECT started_at, last_at, page_views, source FROM sessions WHERE utk = ? ORDER BY started_at',
      ),
      vi,
    );
    // 36 page views fill 11 h 40 min; the 37th would make it 12 h: it starts the next session.
    expect(rows.map((r) => ({ ...r, started_at: Number(r.started_at), last_at: Number(r.last_at) }))).toEqual([
      { started_at: at, last_at: at + 35 * 20 * MIN, page_views: 36, source: 'ORGANIC_SEARCH' },
      { started_at: at + 36 * 20 * MIN, last_at: at + 39 * 20 * MIN, page_views: 4, source: 'DIRECT_TRAFFIC' },
    ]);
    expect(await contact('kiosk@visitors.test')).toMatchObject({
      svc_analytics_num_visits: '2',
      svc_analytics_num_page_views: '40',
      svc_analytics_average_page_views: '20',
    });
  });

  it('sessions of several visitors grow in one batch, each by its own page views (one statement for all on PostgreSQL)', async () => {
    const [a, b] = [visitor(), visitor()];
    const at = (t.clock.now += 60 * MIN);
    await collect(
      view(a, 'https://acme.test/', 'https://www.google.com/', at),
      view(b, 'https://acme.test/', 'https://www.bing.com/', at),
    );
    // One batch with both visitors' next page views, within their sessions; the first of b's is
    // older than its session's start, which moves.
    await collect(
      view(a, 'https://acme.test/a', 'https://acme.test/', at + 5 * MIN),
      view(a, 'https://acme.test/b', 'https://acme.test/a', at + 9 * MIN),
      view(b, 'https://acme.test/c', undefined, at - 2 * MIN),
    );
    const rows = await t.platform.services.engine.all(
      sql<[string, string], { utk: string; started_at: number; last_at: number; page_views: number; source: string }>(
        'SELECT utk, started_at, last_at, page_views, source FROM sessions WHERE utk IN (?, ?) ORDER BY utk, started_at',
      ),
      a,
      b,
    );
    expect(
      rows.map((r) => ({
        ...r,
        started_at: Number(r.started_at),
        last_at: Number(r.last_at),
        page_views: Number(r.page_views),
      })),
    ).toEqual([
      { utk: a, started_at: at, last_at: at + 9 * MIN, page_views: 3, source: 'ORGANIC_SEARCH' },
      { utk: b, started_at: at - 2 * MIN, last_at: at, page_views: 2, source: 'ORGANIC_SEARCH' },
    ]);
  });

  it("a contact identified by another visitor in a batch that counts its known visitor's page views keeps both", async () => {
    const [known, other] = [visitor(), visitor()];
    const at = (t.clock.now += 60 * MIN);
    await collect(view(known, 'https://acme.test/', undefined, at, { i: 'email=ident%40visitors.test' }));
    // One batch: the known visitor's page view, counted at the batch's end from the contact's row as
    // the other visitor's identify data (the same email, a first name) left it.
    await collect(
      view(known, 'https://acme.test/a', 'https://acme.test/', at + MIN),
      view(other, 'https://acme.test/b', undefined, at + 2 * MIN, { i: 'email=ident%40visitors.test&firstname=Ada' }),
    );
    expect(await contact('ident@visitors.test')).toMatchObject({ firstname: 'Ada', svc_analytics_num_page_views: '3' });
  });

  it("a known contact's later visits count as they come, batch by batch", async () => {
    const vi = visitor();
    let at = (t.clock.now += 60 * MIN);
    await collect(
      view(vi, 'https://acme.test/', 'https://www.reddit.com/r/widgets', at, { i: 'email=known%40visitors.test' }),
    );
    for (let day = 1; day <= 3; day++) {
      at += 24 * 60 * MIN;
      await collect(
        view(vi, 'https://acme.test/', undefined, at),
        view(vi, 'https://acme.test/x', 'https://acme.test/', at + MIN),
      );
    }
    at += 24 * 60 * MIN;
    await collect(view(vi, 'https://acme.test/?gclid=abc', 'https://www.google.com/', at));
    const p = await contact('known@visitors.test');
    expect(p).toMatchObject({
      svc_analytics_num_visits: '5',
      svc_analytics_num_page_views: '8',
      svc_analytics_average_page_views: '1.6',
    });
    expect(source(p)).toEqual(['SOCIAL_MEDIA', 'Reddit', 'https://www.reddit.com/r/widgets']);
    expect(latest(p)).toEqual(['PAID_SEARCH', 'Google', null]);
    expect(p.svc_analytics_first_referrer).toBe('https://www.reddit.com/r/widgets');
    expect(p.svc_analytics_last_referrer).toBe('https://www.google.com/');
  });
});

describe('anonymous history', () => {
  it("counts a visitor's earlier sessions once a form submission makes it a contact", async () => {
    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    await collect(view(vi, 'https://acme.test/', 'https://www.ecosia.org/', at));
    await collect(
      view(
        vi,
        'https://acme.test/?utm_source=newsletter&utm_medium=email&utm_campaign=may',
        undefined,
        at + 2 * 24 * 60 * MIN,
      ),
    );
    const form = (
      await t.call('POST', '/contacts/v1/forms', { body: { name: 'Attribution', fields: [{ name: 'email' }] } })
    ).json;
    const body = new URLSearchParams({
      email: 'former@visitors.test',
      svc_context: JSON.stringify({ svcutk: vi, pageUrl: 'https://acme.test/contact' }),
    });
    const res = await t.call('POST', `${t.formsUrl}/uploads/form/v2/${PORTAL}/${form.guid}`, {
      body: body.toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      portal: null,
    });
    expect(res.status).toBeLessThan(300);
    const p = await contact('former@visitors.test');
    expect(p).toMatchObject({
      svc_analytics_num_visits: '2',
      svc_analytics_num_page_views: '2',
      svc_analytics_average_page_views: '1',
    });
    expect(source(p)).toEqual(['ORGANIC_SEARCH', 'Ecosia', null]);
    expect(latest(p)).toEqual(['EMAIL_MARKETING', 'may', null]);
  });

  it('a visit before a contact made through the API is its original source (the API contact is identified later)', async () => {
    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    await collect(view(vi, 'https://acme.test/', 'https://www.widget-reviews.example/', at));
    t.clock.now = at + 5 * MIN;
    await t.call('POST', '/contacts/v1/contact', {
      body: { properties: [{ property: 'email', value: 'earlier@visitors.test' }] },
    });
    await collect(
      view(vi, 'https://acme.test/b', 'https://acme.test/', at + 6 * MIN, { i: 'email=earlier%40visitors.test' }),
    );
    const p = await contact('earlier@visitors.test');
    expect(source(p)).toEqual(['REFERRALS', 'widget-reviews.example', 'https://www.widget-reviews.example/']);
    expect(p.svc_analytics_num_visits).toBe('1');
  });
});

describe('the events API', () => {
  it('keeps the source it is given; a contact it makes without one is OFFLINE (API)', async () => {
    const given = await t.call('POST', '/v1/event', {
      body: {
        eventName: 'purchase',
        email: 'server@visitors.test',
        properties: { svc_analytics_source: 'PAID_SOCIAL', svc_analytics_source_data_1: 'Pinterest', firstname: 'Sam' },
      },
    });
    expect(given.status).toBe(204);
    let p = await contact('server@visitors.test');
    expect(p.firstname).toBe('Sam');
    expect(source(p)).toEqual(['PAID_SOCIAL', 'Pinterest', null]);
    expect(latest(p)).toEqual(['PAID_SOCIAL', 'Pinterest', null]);

    // A later event with another source is the latest; the original stays.
    await t.call(
      'GET',
      `/v1/event?_n=renewal&_a=${PORTAL}&email=server%40visitors.test&svc_analytics_source=EMAIL_MARKETING&svc_analytics_source_data_1=renewals`,
      { portal: null },
    );
    p = await contact('server@visitors.test');
    expect(source(p)).toEqual(['PAID_SOCIAL', 'Pinterest', null]);
    expect(latest(p)).toEqual(['EMAIL_MARKETING', 'renewals', null]);

    // No source, or one that is not a source type: an offline contact.
    await t.call('POST', '/v1/event', {
      body: { eventName: 'signup', email: 'plain@visitors.test', properties: { svc_analytics_source: 'BILLBOARD' } },
    });
    expect(source(await contact('plain@visitors.test'))).toEqual(['OFFLINE', 'API', null]);
  });

  it("with a visitor token, the visitor's earlier sessions are the contact's source", async () => {
    const vi = visitor();
    const at = (t.clock.now += 60 * MIN);
    await collect(view(vi, 'https://acme.test/', 'https://www.linkedin.com/feed/', at));
    t.clock.now = at + 10 * MIN;
    expect(
      (await t.call('POST', '/v1/event', { body: { eventName: 'checkout', email: 'tokened@visitors.test', utk: vi } }))
        .status,
    ).toBe(204);
    const p = await contact('tokened@visitors.test');
    expect(source(p)).toEqual(['SOCIAL_MEDIA', 'LinkedIn', 'https://www.linkedin.com/feed/']);
    expect(p.svc_analytics_num_visits).toBe('1');
  });
});
