/** The older blog API (§4.9) over HTTP: JSON and Atom reads, Atom writes (create a draft, update,
 * publish, comment live at once), and how it shares its data with the content API v2. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
let blogGuid: string;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
  blogGuid = (await t.call('GET', '/blog/v1/list.json')).json[0].guid;
  await t.call('POST', '/content/api/v2/blog-authors', { body: { full_name: 'Ada Lovelace', email: 'ada@blog.test' } });
});
afterAll(() => t.close());

/** Atom writes answer in Atom; these tests ask for the same answer in JSON to read its fields
 * (as @svc/client does). The Atom answers themselves: 'blog v1 writes answer in Atom'. */
const ATOM = { 'content-type': 'application/atom+xml', accept: 'application/json' };
const entry = (inner: string) =>
  `<?xml version="1.0"?><entry xmlns="http://www.w3.org/2005/Atom" xmlns:hs="http://www.example.com/">${inner}</entry>`;
const postEntry = (title: string, extra = '') =>
  entry(
    `<title>${title}</title><author><name>Ada L.</name><email>ada@blog.test</email></author><summary>Short</summary>` +
      `<content type="html"><![CDATA[<p>Body of ${title}</p>]]></content><category term="history"/><category term="math"/>${extra}`,
  );
const createPost = (title: string, extra = '') =>
  t.call('POST', `/blog/v1/${blogGuid}/posts.atom`, { body: postEntry(title, extra), headers: ATOM });

describe('blog v1 reads', () => {
  it('lists blogs and reads one, in JSON and in Atom', async () => {
    const blogs = (await t.call('GET', '/blog/v1/list.json')).json;
    expect(blogs).toEqual([expect.objectContaining({ guid: blogGuid, blogTitle: 'Blog', portalId: 62515 })]);
    expect((await t.call('GET', `/blog/v1/${blogGuid}.json`)).json).toEqual(blogs[0]);
    const atom = await t.call('GET', `/blog/v1/${blogGuid}.atom`);
    expect(atom.headers.get('content-type')).toContain('application/atom+xml');
    expect(atom.text).toContain('<title>Blog</title>');
    expect((await t.call('GET', '/blog/v1/list.atom')).text).toContain('<feed xmlns="http://www.w3.org/2005/Atom">');
    // Addresses are where this platform answers.
    expect(blogs[0]).toMatchObject({
      webUrl: `${t.baseUrl}/sites/62515/blog`,
      jsonUrl: `${t.baseUrl}/blog/v1/${blogGuid}.json`,
    });
    expect(atom.text).toContain(`<link href="${t.baseUrl}/sites/62515/blog"/>`);
    expect((await t.call('GET', `/blog/v1/${blogGuid}.json`, { portal: t.portals[1] })).status).toBe(404);
    expect((await t.call('GET', '/blog/v1/nope.json')).status).toBe(404);
    expect((await t.call('GET', `/blog/v1/${blogGuid}.xml`)).json.message).toMatch(/^path\.ext: /);
  });
});

describe('blog v1 posts (§3: created as a draft, published by update)', () => {
  it('creates a draft from Atom, updates it, publishes it, and reads it in JSON and Atom', async () => {
    const created = await createPost('First v1 post');
    expect(created.status).toBe(201);
    const p = created.json;
    expect(p).toMatchObject({
      blogGuid,
      title: 'First v1 post',
      authorDisplayName: 'Ada L.',
      authorEmail: 'ada@blog.test',
      summary: 'Short',
      body: '<p>Body of First v1 post</p>',
      tags: ['history', 'math'],
      draft: true,
      publishTimestamp: null,
    });
    expect((await fetch(p.url)).status).toBe(404);

    const updated = await t.call('PUT', `/blog/v1/posts/${p.guid}.atom`, {
      body: entry(
        '<title>Renamed</title><hs:metaDescription>About it</hs:metaDescription><hs:metaKeywords>a,b</hs:metaKeywords>',
      ),
      headers: ATOM,
    });
    expect(updated.json).toMatchObject({
      title: 'Renamed',
      metaDescription: 'About it',
      metaKeywords: 'a,b',
      draft: true,
      body: '<p>Body of First v1 post</p>',
    });

    const published = await t.call('PUT', `/blog/v1/posts/${p.guid}.atom`, {
      body: entry(
        '<published>2026-01-01T10:00:00Z</published><hs:draft>false</hs:draft><hs:sendNotifications>true</hs:sendNotifications>',
      ),
      headers: ATOM,
    });
    expect(published.json).toMatchObject({ draft: false, publishTimestamp: Date.parse('2026-01-01T10:00:00Z') });
    expect((await fetch(p.url)).status).toBe(200);

    expect((await t.call('GET', `/blog/v1/posts/${p.guid}.json`)).json).toEqual(published.json);
    const atom = (await t.call('GET', `/blog/v1/posts/${p.guid}.atom`)).text;
    expect(atom).toContain('<title>Renamed</title>');
    expect(atom).toContain('<category term="history"');
    expect(atom).toContain('&lt;p&gt;Body of First v1 post&lt;/p&gt;');

    // The same post through the content API v2.
    const v2 = (await t.call('GET', `/content/api/v2/blog-posts/${p.guid}`)).json;
    expect(v2).toMatchObject({ name: 'Renamed', state: 'PUBLISHED', meta_description: 'About it' });
    // Published with nothing to send (no social publishing, no emails): no job in its history.
    expect(await t.platform.services.content.history(t.platform.services.engine, Number(p.guid))).toEqual([]);
  });

  it('lists a blog’s posts, filtered by draft, in JSON and Atom', async () => {
    const a = (await createPost('Listed draft')).json;
    const b = (await createPost('Listed live')).json;
    await t.call('PUT', `/blog/v1/posts/${b.guid}.atom`, { body: entry('<hs:draft>false</hs:draft>'), headers: ATOM });
    const titles = async (q: string) =>
      (await t.call('GET', `/blog/v1/${blogGuid}/posts.json${q}`)).json.map((x: { title: string }) => x.title);
    expect(await titles('?max=2')).toEqual(['Listed live', 'Listed draft']);
    expect(await titles('?draft=true')).toContain('Listed draft');
    expect(await titles('?draft=true')).not.toContain('Listed live');
    expect(await titles('?draft=false')).toContain('Listed live');
    expect(await titles('?max=1&offset=1')).toEqual(['Listed draft']);
    expect((await t.call('GET', `/blog/v1/${blogGuid}/posts.atom?max=2`)).text.match(/<entry>/g)).toHaveLength(2);
    expect(a.guid).not.toBe(b.guid);
  });

  it('refuses bad Atom and unknown authors with a 400 naming the problem', async () => {
    const bad = async (body: string, headers: Record<string, string> = ATOM) =>
      (await t.call('POST', `/blog/v1/${blogGuid}/posts.atom`, { body, headers })).json.message as string;
    expect(await bad('<entry><title>x</title>')).toMatch(/^body: not well-formed XML/);
    expect(await bad('<feed/>')).toBe('body: the document is not an Atom <entry>');
    expect(await bad('')).toMatch(/^body: send an Atom <entry>/);
    expect(await bad('<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><entry><title>&a;</title></entry>')).toBe(
      'body: DOCTYPE declarations are not accepted',
    );
    expect(await bad(entry('<title>x</title>'))).toBe('body.authorEmail: is required');
    expect(await bad(entry('<author><email>ada@blog.test</email></author>'))).toBe('body.title: is required');
    expect(await bad(entry('<title>x</title><author><email>nobody@blog.test</email></author>'))).toMatch(
      /^body\.authorEmail: nobody@blog\.test is not a user/,
    );
    expect(await bad(JSON.stringify({ title: 'x' }), { 'content-type': 'application/json' })).toMatch(
      /^body: send an Atom <entry>/,
    );
    const p = (await createPost('To publish badly')).json;
    const res = await t.call('PUT', `/blog/v1/posts/${p.guid}.atom`, {
      body: entry('<published>yesterday</published>'),
      headers: ATOM,
    });
    expect(res.json.message).toMatch(/^body\.published: /);
    expect(
      (await t.call('PUT', '/blog/v1/posts/999999.atom', { body: entry('<title>x</title>'), headers: ATOM })).status,
    ).toBe(404);
  });

  it('refuses hostile element names and deep nesting with a 400, on posts and comments (they were 500s)', async () => {
    const p = (await createPost('Target')).json;
    const writes = [
      (body: string) => t.call('POST', `/blog/v1/${blogGuid}/posts.atom`, { body, headers: ATOM }),
      (body: string) => t.call('PUT', `/blog/v1/posts/${p.guid}.atom`, { body, headers: ATOM }),
      (body: string) => t.call('POST', `/blog/v1/posts/${p.guid}/comments.atom`, { body, headers: ATOM }),
    ];
    for (const write of writes) {
      for (const name of ['__proto__', 'constructor', 'prototype', 'hs:hasOwnProperty', 'toString']) {
        const res = await write(`<entry><${name}>x</${name}><title>t</title></entry>`);
        expect(res.status, name).toBe(400);
        expect(res.json.message, name).toBe(`body: <${name}> is not an element of an Atom entry`);
      }
      const deep = await write(`<entry>${'<a>'.repeat(5000)}x${'</a>'.repeat(5000)}</entry>`);
      expect(deep.status).toBe(400);
      expect(deep.json.message).toBe('body: elements are nested more than 32 levels deep');
    }
    // Markup inside CDATA is text: a body full of unclosed <br> is fine.
    const html = await writes[0](
      entry(
        `<title>CDATA</title><author><email>ada@blog.test</email></author><content type="html"><![CDATA[${'line<br>'.repeat(50)}]]></content>`,
      ),
    );
    expect(html.status).toBe(201);
  });
});

describe('blog v1 scheduling (issue 16)', () => {
  const HOUR = 3_600_000;
  const iso = (ms: number) => new Date(ms).toISOString();
  const v2 = async (guid: string) => (await t.call('GET', `/content/api/v2/blog-posts/${guid}`)).json;

  it('an update with draft=false and a future <published> schedules the post; moving <published> moves it', async () => {
    const start = t.clock.now;
    const p = (await createPost('Scheduled by v1')).json;
    const at = start + 2 * HOUR;
    const res = await t.call('PUT', `/blog/v1/posts/${p.guid}.atom`, {
      body: entry(`<published>${iso(at)}</published><hs:draft>false</hs:draft>`),
      headers: ATOM,
    });
    expect(res.json).toMatchObject({ draft: true, publishTimestamp: null });
    expect(await v2(p.guid)).toMatchObject({ state: 'SCHEDULED', publish_date: at });
    expect((await fetch(p.url)).status).toBe(404);
    // A later <published> moves the schedule.
    await t.call('PUT', `/blog/v1/posts/${p.guid}.atom`, {
      body: entry(`<published>${iso(at + HOUR)}</published>`),
      headers: ATOM,
    });
    try {
      t.clock.now = at;
      await t.platform.services.scheduler.runDue();
      expect((await v2(p.guid)).state).toBe('SCHEDULED');
      t.clock.now = at + HOUR;
      await t.platform.services.scheduler.runDue();
      expect((await t.call('GET', `/blog/v1/posts/${p.guid}.json`)).json).toMatchObject({
        draft: false,
        publishTimestamp: at + HOUR,
      });
      expect((await fetch(p.url)).status).toBe(200);
    } finally {
      t.clock.now = start;
    }
  });

  it('a create with draft=false publishes, at once or scheduled for a future <published>; draft=true cancels a schedule', async () => {
    const now = await createPost('Created live', '<hs:draft>false</hs:draft>');
    expect(now.status).toBe(201);
    expect(now.json).toMatchObject({ draft: false, publishTimestamp: t.clock.now });
    const later = await createPost(
      'Created scheduled',
      `<published>${iso(t.clock.now + HOUR)}</published><hs:draft>false</hs:draft>`,
    );
    expect(await v2(later.json.guid)).toMatchObject({ state: 'SCHEDULED', publish_date: t.clock.now + HOUR });
    const plain = await createPost('Created draft', `<published>${iso(t.clock.now + HOUR)}</published>`);
    expect(await v2(plain.json.guid)).toMatchObject({ state: 'DRAFT', publish_date: t.clock.now + HOUR });
    await t.call('PUT', `/blog/v1/posts/${later.json.guid}.atom`, {
      body: entry('<hs:draft>true</hs:draft>'),
      headers: ATOM,
    });
    expect((await v2(later.json.guid)).state).toBe('DRAFT');
  });
});

describe('blog v1 writes answer in Atom', () => {
  const atomOnly = { 'content-type': 'application/atom+xml' };
  const guidIn = (atom: string) => /<id>[^<]*\/posts\/(\d+)\.json<\/id>/.exec(atom)?.[1];

  it('answers a create, an update, a publish and a comment with an Atom entry (application/atom+xml)', async () => {
    const created = await t.call('POST', `/blog/v1/${blogGuid}/posts.atom`, {
      body: postEntry('Atom answer'),
      headers: atomOnly,
    });
    expect(created.status).toBe(201);
    expect(created.headers.get('content-type')).toBe('application/atom+xml; charset=utf-8');
    expect(created.text).toMatch(
      /^<\?xml version="1\.0" encoding="utf-8"\?>\n<entry xmlns="http:\/\/www\.w3\.org\/2005\/Atom">/,
    );
    expect(created.text).toContain('<title>Atom answer</title>');
    expect(created.text).toContain('<draft>true</draft>');
    const guid = guidIn(created.text)!;
    expect(created.headers.get('location')).toBe(`${t.baseUrl}/blog/v1/posts/${guid}.atom`);
    // The entry is the one a read answers.
    expect(created.text).toBe((await t.call('GET', `/blog/v1/posts/${guid}.atom`)).text);

    for (const [body, expected] of [
      [entry('<title>Atom renamed</title>'), '<title>Atom renamed</title>'],
      [entry('<hs:draft>false</hs:draft>'), '<draft>false</draft>'],
    ]) {
      const res = await t.call('PUT', `/blog/v1/posts/${guid}.atom`, { body, headers: atomOnly });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('application/atom+xml');
      expect(res.text).toContain(expected);
    }

    const comment = await t.call('POST', `/blog/v1/posts/${guid}/comments.atom`, {
      body: entry('<author><name>Grace</name><email>grace@x.test</email></author><content>Atom comment</content>'),
      headers: { ...atomOnly, accept: 'application/atom+xml' },
    });
    expect(comment.status).toBe(201);
    expect(comment.headers.get('content-type')).toContain('application/atom+xml');
    expect(comment.text).toContain('<content>Atom comment</content>');
  });

  it('keeps errors JSON', async () => {
    const res = await t.call('POST', `/blog/v1/${blogGuid}/posts.atom`, {
      body: entry('<title>x</title>'),
      headers: atomOnly,
    });
    expect(res.status).toBe(400);
    expect(res.json.message).toBe('body.authorEmail: is required');
  });
});

describe('blog v1 comments (§3: live at once)', () => {
  it('creates a comment from Atom and reads it by guid, per post and per blog', async () => {
    const p = (await createPost('Commented v1')).json;
    const res = await t.call('POST', `/blog/v1/posts/${p.guid}/comments.atom`, {
      body: entry(
        '<author><name>Grace</name><email>grace@x.test</email><uri>https://grace.test</uri></author><content><![CDATA[Great post!]]></content>',
      ),
      headers: ATOM,
    });
    expect(res.status).toBe(201);
    const c = res.json;
    expect(c).toMatchObject({
      postGuid: p.guid,
      anonyName: 'Grace',
      anonyEmail: 'grace@x.test',
      anonyUrl: 'https://grace.test',
      comment: 'Great post!',
    });
    expect((await t.call('GET', `/blog/v1/comments/${c.guid}.json`)).json).toEqual(c);
    expect((await t.call('GET', `/blog/v1/posts/${p.guid}/comments.json`)).json).toEqual([c]);
    expect((await t.call('GET', `/blog/v1/${blogGuid}/comments.json`)).json).toContainEqual(c);
    expect((await t.call('GET', `/blog/v1/comments/${c.guid}.atom`)).text).toContain('Great post!');
    expect((await t.call('GET', `/blog/v1/posts/${p.guid}/comments.atom`)).text).toContain('<name>Grace</name>');
    expect((await t.call('GET', `/blog/v1/${blogGuid}/comments.atom`)).text).toContain('<entry>');
    // Live at once: the v2 comment is approved.
    expect((await t.call('GET', `/content/api/v2/comments/${c.guid}`)).json.state).toBe('APPROVED');
    const missing = await t.call('POST', `/blog/v1/posts/${p.guid}/comments.atom`, {
      body: entry('<content>x</content>'),
      headers: ATOM,
    });
    expect(missing.json.message).toBe('body.anonyName: is required');
  });
});
