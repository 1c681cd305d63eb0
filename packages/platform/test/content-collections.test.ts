/** The other content collections on the shared engine (§4.8): full CRUD for comments, authors,
 * topics, pages, templates and URL mappings; the read-only ones (domains, site maps, layouts,
 * blogs) with their buffer and version reads; list paging, filters and ordering. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

const V2 = '/content/api/v2';

let t: TestPlatform;
let blogId: number;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
  blogId = (await t.call('GET', `${V2}/blogs`)).json.objects[0].id;
});
afterAll(() => t.close());

async function create(coll: string, body: Record<string, unknown>) {
  const res = await t.call('POST', `${V2}/${coll}`, { body });
  expect(res.status, JSON.stringify(res.json)).toBe(201);
  return res.json;
}

describe('full-CRUD collections', () => {
  const cases: [string, Record<string, unknown>, Record<string, unknown>, Record<string, unknown>][] = [
    ['blog-authors', { full_name: 'Ada Lovelace', email: 'ada@x.test' }, { slug: 'ada-lovelace' }, { bio: 'Analyst' }],
    ['topics', { name: 'API Docs' }, { slug: 'api-docs' }, { description: 'All about the API' }],
    [
      'pages',
      { name: 'About us' },
      { slug: 'about-us', state: 'DRAFT', subcategory: 'site_page' },
      { html_title: 'About' },
    ],
    [
      'templates',
      { path: 'custom/page/home.html', source: '<html></html>' },
      { folder: 'custom/page', filename: 'home.html' },
      { label: 'Home' },
    ],
    [
      'url-mappings',
      { route_prefix: '/old', destination: '/new', redirect_style: 301 },
      { precedence: 0 },
      { redirect_style: 302 },
    ],
  ];
  for (const [coll, body, derived, change] of cases) {
    it(`${coll}: create, get, update, list, delete, restore`, async () => {
      const made = await create(coll, body);
      expect(made).toMatchObject({ ...body, ...derived, deleted_at: 0, portal_id: 62515 });
      expect((await t.call('GET', `${V2}/${coll}/${made.id}`)).json).toEqual(made);
      const updated = await t.call('PUT', `${V2}/${coll}/${made.id}`, { body: change });
      expect(updated.json).toMatchObject(change);
      expect((await t.call('GET', `${V2}/${coll}?id=${made.id}`)).json.objects).toEqual([updated.json]);
      expect((await t.call('DELETE', `${V2}/${coll}/${made.id}`)).status).toBe(204);
      expect((await t.call('GET', `${V2}/${coll}?id=${made.id}`)).json.total).toBe(0);
      expect((await t.call('POST', `${V2}/${coll}/${made.id}/restore-deleted`)).json.deleted_at).toBe(0);
      expect((await t.call('GET', `${V2}/${coll}/${made.id}`, { portal: t.portals[1] })).status).toBe(404);
    });
  }

  it('comments belong to a post (its blog is filled in) and keep versions', async () => {
    const post = await create('blog-posts', { name: 'Commented', content_group_id: blogId });
    const c = await create('comments', { content_id: post.id, comment: 'First!', user_name: 'Grace' });
    expect(c).toMatchObject({ collection_id: blogId, content_title: 'Commented', state: 'APPROVED' });
    expect(
      (await t.call('POST', `${V2}/comments`, { body: { content_id: 424242, comment: 'x' } })).json.message,
    ).toContain('body.content_id');
    await t.call('PUT', `${V2}/comments/${c.id}`, { body: { comment: 'Edited' } });
    const versions = (await t.call('GET', `${V2}/comments/${c.id}/versions`)).json;
    expect(versions.map((v: { object: { comment: string } }) => v.object.comment)).toEqual(['Edited', 'First!']);
    expect((await t.call('GET', `${V2}/comments/${c.id}/versions/${versions[1].id}`)).json.object.comment).toBe(
      'First!',
    );
    const back = await t.call('POST', `${V2}/comments/${c.id}/versions/restore`, {
      body: { version_id: versions[1].id },
    });
    expect(back.json.comment).toBe('First!');
    expect((await t.call('GET', `${V2}/comments?content_id=${post.id}`)).json.total).toBe(1);
  });

  it('url mappings and templates keep versions too', async () => {
    const m = await create('url-mappings', { route_prefix: '/a', destination: '/b', redirect_style: 302 });
    await t.call('PUT', `${V2}/url-mappings/${m.id}`, { body: { destination: '/c' } });
    const versions = (await t.call('GET', `${V2}/url-mappings/${m.id}/versions`)).json;
    expect(
      (await t.call('POST', `${V2}/url-mappings/${m.id}/versions/restore`, { body: { version_id: versions[1].id } }))
        .json.destination,
    ).toBe('/b');
    expect((await t.call('GET', `${V2}/url-mappings/${m.id}/versions/${versions[0].id}`)).json.object.destination).toBe(
      '/c',
    );
    expect(
      (
        await t.call('POST', `${V2}/url-mappings`, {
          body: { route_prefix: '/a', destination: '/b', redirect_style: 307 },
        })
      ).status,
    ).toBe(400);

    const tpl = await create('templates', { path: 'a/b.html' });
    await t.call('PUT', `${V2}/templates/${tpl.id}`, { body: { source: 'new' } });
    const tv = (await t.call('GET', `${V2}/templates/${tpl.id}/versions`)).json;
    expect((await t.call('GET', `${V2}/templates/${tpl.id}/versions/${tv[0].id}`)).json.object.source).toBe('new');
    expect(
      (await t.call('POST', `${V2}/templates/${tpl.id}/versions/restore`, { body: { version_id: tv[1].id } })).json
        .source,
    ).toBe('');
  });

  it('templates have the buffer family', async () => {
    const tpl = await create('templates', { path: 'x/y.html', source: 'live' });
    const T = `${V2}/templates/${tpl.id}`;
    expect((await t.call('PUT', `${T}/buffer`, { body: { source: 'edited' } })).json.source).toBe('edited');
    expect((await t.call('GET', `${T}/buffer`)).json.source).toBe('edited');
    expect((await t.call('GET', `${T}/has-buffered-changes`)).json.has_buffered_changes).toBe(true);
    expect((await t.call('POST', `${T}/discard-buffer`)).json.source).toBe('live');
    await t.call('PUT', `${T}/buffer`, { body: { source: 'edited again' } });
    expect((await t.call('POST', `${T}/push-buffer-live`)).json.source).toBe('edited again');
    await t.call('PUT', `${T}/buffer`, { body: { source: 'third' } });
    expect((await t.call('PUT', `${T}/push-buffer-live`, { body: { label: 'L' } })).json).toMatchObject({
      source: 'third',
      label: 'L',
    });
  });

  it('pages publish like posts, clone, and take push-buffer-live as a publish action', async () => {
    const p = await create('pages', { name: 'Landing', widgets: { hero: { text: 'hi' } } });
    const P = `${V2}/pages/${p.id}`;
    expect(p.url).toBe(`${t.baseUrl}/sites/62515/landing`);
    expect((await fetch(p.url)).status).toBe(404);
    await t.call('PUT', `${P}/buffer`, { body: { html_title: 'Buffered title' } });
    expect((await t.call('POST', `${P}/validate-buffer`)).json).toEqual({ succeeded: true });
    expect((await t.call('POST', `${P}/publish-action`, { body: { action: 'push-buffer-live' } })).status).toBe(204);
    expect((await t.call('GET', P)).json).toMatchObject({ html_title: 'Buffered title', state: 'DRAFT' });
    expect((await t.call('POST', `${P}/publish-action`, { body: { action: 'schedule-publish' } })).status).toBe(204);
    expect((await t.call('GET', P)).json).toMatchObject({
      state: 'PUBLISHED',
      is_draft: false,
      current_state: 'PUBLISHED',
    });
    expect((await fetch(p.url)).status).toBe(200);
    const copy = await t.call('POST', `${P}/clone`, { body: { name: 'Landing 2' } });
    expect(copy.json).toMatchObject({ name: 'Landing 2', state: 'DRAFT', slug: 'landing-2', cloned_from: p.id });
    await t.call('PUT', `${P}/buffer`, { body: { name: 'x' } });
    expect((await t.call('POST', `${P}/discard-buffer`)).json.name).toBe('Landing');
    expect((await t.call('GET', `${P}/has-buffered-changes`)).json.has_buffered_changes).toBe(false);
    await t.call('PUT', P, { body: { name: 'Landing page' } });
    const versions = (await t.call('GET', `${P}/versions`)).json;
    expect(versions[0].object.name).toBe('Landing page');
    expect((await t.call('GET', `${P}/versions/${versions[0].id}`)).json.id).toBe(versions[0].id);
    expect(
      (await t.call('POST', `${P}/versions/restore`, { body: { version_id: versions.at(-1).id } })).json,
    ).toMatchObject({ name: 'Landing', state: 'PUBLISHED' });
  });
});

describe('read-only collections', () => {
  for (const coll of ['domains', 'site-maps', 'layouts', 'blogs']) {
    it(`${coll}: seeded for each portal, list and get, versions`, async () => {
      const list = (await t.call('GET', `${V2}/${coll}`)).json;
      expect(list).toMatchObject({ limit: 20, offset: 0, total: 1, total_count: 1 });
      const [one] = list.objects;
      expect((await t.call('GET', `${V2}/${coll}/${one.id}`)).json).toEqual(one);
      expect((await t.call('GET', `${V2}/${coll}/${one.id}`, { portal: t.portals[1] })).status).toBe(404);
      const versions = (await t.call('GET', `${V2}/${coll}/${one.id}/versions`)).json;
      expect(versions).toHaveLength(1);
      expect((await t.call('GET', `${V2}/${coll}/${one.id}/versions/${versions[0].id}`)).json.object.id).toBe(one.id);
      expect((await t.call('POST', `${V2}/${coll}`, { body: {} })).status).toBe(405);
    });
  }

  it('site maps and layouts answer their buffer (the live object) and no buffered changes', async () => {
    for (const coll of ['site-maps', 'layouts']) {
      const [one] = (await t.call('GET', `${V2}/${coll}`)).json.objects;
      expect((await t.call('GET', `${V2}/${coll}/${one.id}/buffer`)).json).toEqual(one);
      expect((await t.call('GET', `${V2}/${coll}/${one.id}/has-buffered-changes`)).json).toEqual({
        has_buffered_changes: false,
      });
    }
  });

  it('blogs: discard-buffer and push-buffer-live answer the live blog', async () => {
    const blog = (await t.call('GET', `${V2}/blogs/${blogId}`)).json;
    expect((await t.call('POST', `${V2}/blogs/${blogId}/discard-buffer`)).json).toEqual(blog);
    expect((await t.call('PUT', `${V2}/blogs/${blogId}/push-buffer-live`)).json).toMatchObject({
      id: blogId,
      name: 'Blog',
    });
  });
});

describe('url mappings on the served site', () => {
  const site = `/sites/62515`;
  /** A request to the portal's site, redirects not followed. */
  const visit = async (path: string, portal = 62515) => {
    const res = await fetch(`${t.baseUrl}/sites/${portal}${path}`, { redirect: 'manual' });
    return { status: res.status, location: res.headers.get('location') };
  };
  const mapping = (body: Record<string, unknown>) => create('url-mappings', { redirect_style: 301, ...body });
  const livePage = async (slug: string) => {
    const p = await create('pages', { name: slug, slug });
    await t.call('POST', `${V2}/pages/${p.id}/publish-action`, { body: { action: 'schedule-publish' } });
    return p;
  };

  it('redirects a route_prefix to its destination, 301 or 302 per redirect_style, until the mapping is deleted', async () => {
    const m = await mapping({ route_prefix: '/m/old', destination: '/m/new' });
    const moved = { status: 301, location: `${t.baseUrl}${site}/m/new` };
    expect(await visit('/m/old')).toEqual(moved);
    expect(await visit('/m/old/')).toEqual(moved);
    // The query goes along: a campaign link's utm_ parameters still say where the visit came from.
    expect(await visit('/m/old?utm_source=ad&utm_campaign=spring')).toEqual({
      ...moved,
      location: `${moved.location}?utm_source=ad&utm_campaign=spring`,
    });
    expect((await visit('/m/old/deeper')).status).toBe(404);
    await t.call('PUT', `${V2}/url-mappings/${m.id}`, {
      body: { redirect_style: 302, destination: 'https://elsewhere.test/x?y=1#top' },
    });
    expect(await visit('/m/old')).toEqual({ status: 302, location: 'https://elsewhere.test/x?y=1#top' });
    expect((await visit('/m/old?utm_source=ad')).location).toBe('https://elsewhere.test/x?y=1&utm_source=ad#top');
    await t.call('DELETE', `${V2}/url-mappings/${m.id}`);
    expect(await visit('/m/old')).toEqual({ status: 404, location: null });
    await t.call('POST', `${V2}/url-mappings/${m.id}/restore-deleted`);
    expect((await visit('/m/old')).status).toBe(302);
    // Another portal's site has its own mappings.
    expect((await visit('/m/old', 99999)).status).toBe(404);
  });

  it('the lowest precedence wins among mappings of one route (then the older one)', async () => {
    const five = await mapping({ route_prefix: '/m/p', destination: '/m/five', precedence: 5 });
    await mapping({ route_prefix: '/m/p', destination: '/m/one', precedence: 1 });
    await mapping({ route_prefix: '/m/p', destination: '/m/one-later', precedence: 1 });
    expect((await visit('/m/p')).location).toBe(`${t.baseUrl}${site}/m/one`);
    await t.call('PUT', `${V2}/url-mappings/${five.id}`, { body: { precedence: -1 } });
    expect((await visit('/m/p')).location).toBe(`${t.baseUrl}${site}/m/five`);
  });

  it('is_only_after_not_found waits for no page to be there; other mappings win over a live page', async () => {
    const kept = await livePage('m/kept');
    await mapping({ route_prefix: '/m/kept', destination: '/m/fallback', is_only_after_not_found: true });
    expect((await visit('/m/kept')).status).toBe(200);
    await t.call('POST', `${V2}/pages/${kept.id}/publish-action`, { body: { action: 'cancel-publish' } });
    expect(await visit('/m/kept')).toEqual({ status: 301, location: `${t.baseUrl}${site}/m/fallback` });

    await livePage('m/replaced');
    await mapping({ route_prefix: '/m/replaced', destination: '/m/elsewhere' });
    expect((await visit('/m/replaced')).location).toBe(`${t.baseUrl}${site}/m/elsewhere`);
  });

  it('matches the query string with is_match_query_string, and the whole URL with is_match_full_url', async () => {
    await mapping({ route_prefix: '/m/q?src=ad', destination: '/m/from-ad', is_match_query_string: true });
    // Matched on its query, the mapping's destination is all there is.
    expect((await visit('/m/q?src=ad')).location).toBe(`${t.baseUrl}${site}/m/from-ad`);
    expect((await visit('/m/q?src=other')).status).toBe(404);
    expect((await visit('/m/q')).status).toBe(404);

    await mapping({ route_prefix: `${t.baseUrl}${site}/m/full`, destination: '/m/by-url', is_match_full_url: true });
    expect((await visit('/m/full')).location).toBe(`${t.baseUrl}${site}/m/by-url`);
    await mapping({ route_prefix: 'https://other-host.test/m/other', destination: '/m/x', is_match_full_url: true });
    expect((await visit('/m/other')).status).toBe(404);
  });

  it('refuses a mapping without route_prefix, destination or a known redirect_style', async () => {
    const bad = async (body: Record<string, unknown>) =>
      (await t.call('POST', `${V2}/url-mappings`, { body })).json.message;
    expect(await bad({ destination: '/x', redirect_style: 301 })).toBe('body.route_prefix: is required');
    expect(await bad({ route_prefix: '/x', redirect_style: 301 })).toBe('body.destination: is required');
    expect(await bad({ route_prefix: '/x', destination: '/y', redirect_style: 307 })).toMatch(
      /^body\.redirect_style: /,
    );
  });
});

describe('addresses in records follow the served address', () => {
  it('a blog’s root_url is on the address the platform listens on, not one fixed when it was seeded', async () => {
    const blog = (await t.call('GET', `${V2}/blogs/${blogId}`)).json;
    expect(blog.root_url).toBe(`${t.baseUrl}/sites/62515/blog`);
    expect((await t.call('GET', `${V2}/blogs/${blogId}`, { portal: t.portals[1] })).status).toBe(404);
    const other = (await t.call('GET', `${V2}/blogs`, { portal: t.portals[1] })).json.objects[0];
    expect(other.root_url).toBe(`${t.baseUrl}/sites/99999/blog`);
    expect((await t.call('GET', `${V2}/blogs?root_url=x`)).json.message).toBe('query.root_url: unknown field root_url');
  });

  it('with publicUrl, every record’s URL starts with it (blogs, posts, files)', async () => {
    const behind = await startPlatform({ publicUrl: 'https://svc.example.test/edge/', portals: [{ id: 4242 }] });
    try {
      const blog = (await behind.call('GET', `${V2}/blogs`)).json.objects[0];
      expect(blog.root_url).toBe('https://svc.example.test/edge/sites/4242/blog');
      const post = (
        await behind.call('POST', `${V2}/blog-posts`, { body: { name: 'Behind a proxy', content_group_id: blog.id } })
      ).json;
      expect(post.url).toBe('https://svc.example.test/edge/sites/4242/blog/behind-a-proxy');
      const form = new FormData();
      form.append('files', new Blob(['x'], { type: 'text/plain' }), 'a.txt');
      const res = await fetch(`${behind.baseUrl}${V2}/files`, {
        method: 'POST',
        headers: behind.portals[0].auth,
        body: form,
      });
      expect(((await res.json()) as { objects: { url: string }[] }).objects[0].url).toMatch(
        /^https:\/\/svc\.example\.test\/edge\/hubfs\/4242\//,
      );
    } finally {
      await behind.close();
    }
  });

  it('refuses a publicUrl that cannot start a URL', async () => {
    for (const publicUrl of [
      'svc.example.test',
      'ftp://svc.example.test',
      'https://svc.example.test/?a=1',
      'https://u:p@svc.example.test',
    ])
      await expect(startPlatform({ publicUrl }), publicUrl).rejects.toThrow(
        /^publicUrl \(--public-url\) must be an http or https URL/,
      );
  });
});

describe('lists: paging, filters, order', () => {
  let ids: number[];
  beforeAll(async () => {
    const blog = (await t.call('GET', `${V2}/blogs`, { portal: t.portals[1] })).json.objects[0].id;
    ids = [];
    for (const [i, name] of [
      'Spring launch',
      'Summer SALE',
      'Autumn notes',
      'Winter launch',
      'Spring recap',
    ].entries()) {
      t.clock.now += 1000;
      const res = await t.call('POST', `${V2}/blog-posts`, {
        body: { name, content_group_id: blog, publish_date: 1000 * (i + 1) },
        portal: t.portals[1],
      });
      ids.push(res.json.id);
    }
  });
  const names = async (query: string) => {
    const res = await t.call('GET', `${V2}/blog-posts?${query}`, { portal: t.portals[1] });
    expect(res.status, JSON.stringify(res.json)).toBe(200);
    return res.json.objects.map((o: { name: string }) => o.name);
  };

  it('pages with limit and offset, total counting all matches', async () => {
    const res = (await t.call('GET', `${V2}/blog-posts?limit=2&offset=1`, { portal: t.portals[1] })).json;
    expect(res).toMatchObject({ limit: 2, offset: 1, total: 5, total_count: 5 });
    expect(res.objects.map((o: { id: number }) => o.id)).toEqual(ids.slice(1, 3));
    expect((await t.call('GET', `${V2}/blog-posts?limit=500`, { portal: t.portals[1] })).json.limit).toBe(300);
    expect((await t.call('GET', `${V2}/blog-posts?offset=10`, { portal: t.portals[1] })).json.objects).toEqual([]);
  });

  it('filters with __eq, __contains, __icontains, __gt, __lt, __in, __ne, __range', async () => {
    expect(await names('name__eq=Autumn%20notes')).toEqual(['Autumn notes']);
    expect(await names('name=Autumn%20notes')).toEqual(['Autumn notes']);
    expect(await names('name__contains=launch')).toEqual(['Spring launch', 'Winter launch']);
    expect(await names('name__contains=sale')).toEqual([]);
    expect(await names('name__icontains=sale')).toEqual(['Summer SALE']);
    expect(await names('publish_date__gt=3000')).toEqual(['Winter launch', 'Spring recap']);
    expect(await names('publish_date__lt=2000')).toEqual(['Spring launch']);
    expect(await names('publish_date__range=2000,3000')).toEqual(['Summer SALE', 'Autumn notes']);
    expect(await names(`id__in=${ids[0]},${ids[4]}`)).toEqual(['Spring launch', 'Spring recap']);
    expect(await names('name__ne=Spring%20launch&name__icontains=spring')).toEqual(['Spring recap']);
    expect(await names('state=DRAFT&archived=false&name__icontains=winter')).toEqual(['Winter launch']);
    expect(await names('state=PUBLISHED')).toEqual([]);
  });

  it('orders by a field, ascending or descending', async () => {
    expect(await names('order_by=-publish_date&limit=2')).toEqual(['Spring recap', 'Winter launch']);
    expect(await names('order_by=name&limit=2')).toEqual(['Autumn notes', 'Spring launch']);
    expect(await names('order_by=-created&limit=1')).toEqual(['Spring recap']);
  });

  it('refuses unknown fields, operators and bad values with a 400 naming them', async () => {
    const bad = async (query: string) =>
      (await t.call('GET', `${V2}/blog-posts?${query}`, { portal: t.portals[1] })).json.message;
    expect(await bad('colour=red')).toBe('query.colour: unknown field colour');
    expect(await bad('url__contains=blog')).toBe('query.url__contains: unknown field url');
    expect(await bad('name__like=x')).toMatch(/^query\.name__like: unknown operator like/);
    expect(await bad('order_by=colour')).toBe('query.order_by: unknown field colour');
    expect(await bad('order_by=na;me')).toMatch(/^query\.order_by: /);
    expect(await bad('limit=0')).toBe('query.limit: must be at least 1');
    expect(await bad('offset=-1')).toMatch(/^query\.offset: /);
    expect(await bad('state=LIVE')).toMatch(/^query\.state: /);
    expect(await bad('publish_date__range=1')).toBe('query.publish_date__range: must be two values, from,to');
    expect(await bad('name=a&name=b')).toBe('query.name: give it once');
    // A number column compared with what is not a number (on PostgreSQL a failed statement before).
    expect(await bad('created__gt=abc')).toBe("query.created__gt: created is a number, not 'abc'");
    expect(await bad('publish_date__range=1,a')).toBe("query.publish_date__range: publish_date is a number, not 'a'");
    expect(await bad('id__in=1.5,2')).toBe("query.id__in: id is a whole number, not '1.5'");
    expect(await bad('id__ne=abc')).toBe("query.id__ne: id is a whole number, not 'abc'");
    expect(await bad('deleted_at__gte=99999999999999999999')).toBe(
      "query.deleted_at__gte: deleted_at is a whole number, not '99999999999999999999'",
    );
  });

  it('searches a number column as its digits, and compares it with fractions', async () => {
    expect(await names(`id__contains=${ids[2]}`)).toContain('Autumn notes');
    expect(await names(`content_group_id__icontains=x`)).toEqual([]);
    expect(await names('publish_date__gt=2999.5&publish_date__lt=3000.5')).toEqual(['Autumn notes']);
  });
});

describe('pages never go live by mistake (issue 16)', () => {
  const HOUR = 3_600_000;
  const publish = (id: number, action = 'schedule-publish') =>
    t.call('POST', `${V2}/pages/${id}/publish-action`, { body: { action } });

  it('a scheduled page goes live at its current publish_date, moved earlier', async () => {
    const start = t.clock.now;
    const p = await create('pages', {
      name: 'Scheduled page',
      publish_immediately: false,
      publish_date: start + 3 * HOUR,
    });
    expect((await publish(p.id)).status).toBe(204);
    await t.call('PUT', `${V2}/pages/${p.id}`, { body: { publish_date: start + HOUR } });
    try {
      t.clock.now = start + HOUR;
      await t.platform.services.scheduler.runDue();
      expect((await t.call('GET', `${V2}/pages/${p.id}`)).json).toMatchObject({
        state: 'PUBLISHED',
        publish_date: start + HOUR,
      });
      expect((await fetch(p.url)).status).toBe(200);
    } finally {
      t.clock.now = start;
    }
  });

  it('two live pages never share a URL (409 naming the slug and the page); drafts may', async () => {
    const a = await create('pages', { name: 'Shared page' });
    const b = await create('pages', { name: 'Shared page' });
    expect(b.slug).toBe(a.slug);
    expect((await publish(a.id)).status).toBe(204);
    const res = await publish(b.id);
    expect(res.status).toBe(409);
    expect(res.json.message).toBe(
      `slug ${a.slug} is the URL of published page ${a.id}: change the slug, or unpublish that one first`,
    );
    // A post cannot take a live page's URL either: both are served at /sites/<portal>/<slug>.
    const post = await create('blog-posts', { name: 'Post at a page URL', content_group_id: blogId, slug: a.slug });
    expect(
      (await t.call('POST', `${V2}/blog-posts/${post.id}/publish-action`, { body: { action: 'schedule-publish' } }))
        .status,
    ).toBe(409);
    // push-buffer-live of a slug onto a live page's URL is refused too, and the buffer is kept.
    await t.call('PUT', `${V2}/pages/${b.id}`, { body: { slug: 'shared-page-b' } });
    expect((await publish(b.id)).status).toBe(204);
    await t.call('PUT', `${V2}/pages/${b.id}/buffer`, { body: { slug: a.slug } });
    expect((await t.call('POST', `${V2}/pages/${b.id}/push-buffer-live`)).status).toBe(409);
    expect((await t.call('GET', `${V2}/pages/${b.id}/has-buffered-changes`)).json.has_buffered_changes).toBe(true);
  });

  it('templates merge a buffer with a live edit made meanwhile', async () => {
    const tpl = await create('templates', { path: 'merge/t.html', source: 'live', label: 'L1' });
    const T = `${V2}/templates/${tpl.id}`;
    await t.call('PUT', `${T}/buffer`, { body: { source: 'buffered' } });
    await t.call('PUT', T, { body: { label: 'L2' } });
    expect((await t.call('PUT', `${T}/push-buffer-live`, {})).json).toMatchObject({ source: 'buffered', label: 'L2' });
  });
});
