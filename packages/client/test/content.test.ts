/** The content API v2 methods against the real platform: every blog-post route once (the §3
 * publishing sequence included), the other collections' CRUD, buffer and version methods, the
 * read-only collections, and the content list iterator. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

describe('blog posts', () => {
  it('runs the publishing sequence of §4.8 and every blog-post method', async () => {
    const c = clientFor(t);
    const blog = (await c.content.blogs.list()).objects[0];
    expect((await c.content.blogs.get(blog.id)).name).toBe('Blog');
    // (1) create a draft, (2) add what it needs, (3) publish.
    const draft = await c.content.blogPosts.create({ name: 'Client post', content_group_id: blog.id });
    expect(draft.state).toBe('DRAFT');
    const updated = await c.content.blogPosts.update(draft.id, {
      post_body: '<p>Hello</p>',
      publish_date: Date.now() - 1000,
    });
    expect(updated.state).toBe('DRAFT');
    expect(await c.content.blogPosts.publish(draft.id)).toBeUndefined();
    expect((await c.content.blogPosts.get(draft.id)).state).toBe('PUBLISHED');
    expect((await fetch(updated.url!)).status).toBe(200);
    expect(await c.content.blogPosts.publish(draft.id, { action: 'cancel-publish' })).toBeUndefined();

    await c.content.blogPosts.updateBuffer(draft.id, { post_body: '<p>Buffered</p>' });
    expect((await c.content.blogPosts.getBuffer(draft.id)).post_body).toBe('<p>Buffered</p>');
    expect(await c.content.blogPosts.hasBufferedChanges(draft.id)).toEqual({ has_buffered_changes: true });
    expect(await c.content.blogPosts.validateBuffer(draft.id)).toEqual({ succeeded: true });
    expect((await c.content.blogPosts.discardBuffer(draft.id)).post_body).toBe('<p>Hello</p>');
    await c.content.blogPosts.updateBuffer(draft.id, { post_body: '<p>Two</p>' });
    expect((await c.content.blogPosts.pushBufferLive(draft.id)).post_body).toBe('<p>Two</p>');
    await c.content.blogPosts.updateBuffer(draft.id, { post_body: '<p>Three</p>' });
    expect((await c.content.blogPosts.pushBufferLiveAndUpdate(draft.id, { name: 'Renamed' })).name).toBe('Renamed');

    const versions = await c.content.blogPosts.listVersions(draft.id);
    expect((await c.content.blogPosts.getVersion(draft.id, versions.at(-1)!.id)).object.post_body).toBe('');
    expect((await c.content.blogPosts.restoreVersion(draft.id, { version_id: versions.at(-1)!.id })).post_body).toBe(
      '',
    );
    expect((await c.content.blogPosts.clone(draft.id, { name: 'Cloned' })).cloned_from).toBe(draft.id);
    expect((await c.content.blogPosts.list({ name__eq: 'Cloned' })).total).toBe(1);

    expect(await c.content.blogPosts.delete(draft.id)).toBeUndefined();
    expect((await c.content.blogPosts.restoreDeleted(draft.id)).deleted_at).toBe(0);
    await expect(c.content.blogPosts.get(424242424)).rejects.toMatchObject({ status: 404 });
  });

  it('pages through every post with the list iterator', async () => {
    const c = clientFor(t, t.portals[1]);
    const blog = (await c.content.blogs.list()).objects[0];
    for (let i = 0; i < 5; i++) await c.content.blogPosts.create({ name: `Paged ${i}`, content_group_id: blog.id });
    const names: string[] = [];
    for await (const p of c.content.blogPosts.all({ limit: 2 })) names.push(p.name!);
    expect(names).toEqual(['Paged 0', 'Paged 1', 'Paged 2', 'Paged 3', 'Paged 4']);
  });
});

describe('other collections', () => {
  it('comments, authors, topics, URL mappings: CRUD, soft delete, versions', async () => {
    const c = clientFor(t);
    const blog = (await c.content.blogs.list()).objects[0];
    const post = await c.content.blogPosts.create({ name: 'For comments', content_group_id: blog.id });

    const comment = await c.content.comments.create({ content_id: post.id, comment: 'Nice' });
    expect((await c.content.comments.update(comment.id, { comment: 'Nicer' })).comment).toBe('Nicer');
    expect((await c.content.comments.get(comment.id)).collection_id).toBe(blog.id);
    expect((await c.content.comments.list()).total).toBeGreaterThan(0);
    const cv = await c.content.comments.listVersions(comment.id);
    expect((await c.content.comments.getVersion(comment.id, cv[1].id)).object.comment).toBe('Nice');
    expect((await c.content.comments.restoreVersion(comment.id, { version_id: cv[1].id })).comment).toBe('Nice');
    await c.content.comments.delete(comment.id);
    expect((await c.content.comments.restoreDeleted(comment.id)).deleted_at).toBe(0);

    const author = await c.content.blogAuthors.create({ full_name: 'Grace Hopper' });
    expect((await c.content.blogAuthors.update(author.id, { bio: 'Admiral' })).bio).toBe('Admiral');
    expect((await c.content.blogAuthors.get(author.id)).slug).toBe('grace-hopper');
    expect((await c.content.blogAuthors.list()).total).toBe(1);
    await c.content.blogAuthors.delete(author.id);
    expect((await c.content.blogAuthors.restoreDeleted(author.id)).id).toBe(author.id);

    const topic = await c.content.topics.create({ name: 'Client topics' });
    expect((await c.content.topics.update(topic.id, { description: 'd' })).description).toBe('d');
    expect((await c.content.topics.get(topic.id)).slug).toBe('client-topics');
    expect((await c.content.topics.list()).total).toBe(1);
    await c.content.topics.delete(topic.id);
    expect((await c.content.topics.restoreDeleted(topic.id)).id).toBe(topic.id);

    const mapping = await c.content.urlMappings.create({
      route_prefix: '/from',
      destination: '/to',
      redirect_style: 301,
    });
    expect((await c.content.urlMappings.update(mapping.id, { destination: '/elsewhere' })).destination).toBe(
      '/elsewhere',
    );
    expect((await c.content.urlMappings.get(mapping.id)).redirect_style).toBe(301);
    expect((await c.content.urlMappings.list()).total).toBe(1);
    const mv = await c.content.urlMappings.listVersions(mapping.id);
    expect((await c.content.urlMappings.getVersion(mapping.id, mv[1].id)).object.destination).toBe('/to');
    expect((await c.content.urlMappings.restoreVersion(mapping.id, { version_id: mv[1].id })).destination).toBe('/to');
    await c.content.urlMappings.delete(mapping.id);
    expect((await c.content.urlMappings.restoreDeleted(mapping.id)).deleted_at).toBe(0);
  });

  it('pages and templates: CRUD, buffer, publish, clone, versions', async () => {
    const c = clientFor(t);
    const page = await c.content.pages.create({ name: 'Client page' });
    expect((await c.content.pages.update(page.id, { html_title: 'T' })).html_title).toBe('T');
    expect((await c.content.pages.get(page.id)).state).toBe('DRAFT');
    expect((await c.content.pages.list()).total).toBeGreaterThan(0);
    await c.content.pages.updateBuffer(page.id, { html_title: 'B' });
    expect((await c.content.pages.getBuffer(page.id)).html_title).toBe('B');
    expect((await c.content.pages.hasBufferedChanges(page.id)).has_buffered_changes).toBe(true);
    expect(await c.content.pages.validateBuffer(page.id)).toEqual({ succeeded: true });
    expect((await c.content.pages.discardBuffer(page.id)).html_title).toBe('T');
    await c.content.pages.updateBuffer(page.id, { html_title: 'B2' });
    expect((await c.content.pages.pushBufferLive(page.id)).html_title).toBe('B2');
    expect((await c.content.pages.pushBufferLiveAndUpdate(page.id, { meta_description: 'm' })).meta_description).toBe(
      'm',
    );
    expect(await c.content.pages.publish(page.id)).toBeUndefined();
    expect((await c.content.pages.clone(page.id, { name: 'Page copy' })).state).toBe('DRAFT');
    const pv = await c.content.pages.listVersions(page.id);
    expect((await c.content.pages.getVersion(page.id, pv[0].id)).id).toBe(pv[0].id);
    expect((await c.content.pages.restoreVersion(page.id, { version_id: pv.at(-1)!.id })).html_title).toBe(
      'Client page',
    );
    await c.content.pages.delete(page.id);
    expect((await c.content.pages.restoreDeleted(page.id)).deleted_at).toBe(0);

    const tpl = await c.content.templates.create({ path: 'client/t.html', source: 'a' });
    expect((await c.content.templates.update(tpl.id, { source: 'b' })).source).toBe('b');
    expect((await c.content.templates.get(tpl.id)).filename).toBe('t.html');
    expect((await c.content.templates.list()).total).toBe(1);
    await c.content.templates.updateBuffer(tpl.id, { source: 'c' });
    expect((await c.content.templates.getBuffer(tpl.id)).source).toBe('c');
    expect((await c.content.templates.hasBufferedChanges(tpl.id)).has_buffered_changes).toBe(true);
    expect((await c.content.templates.discardBuffer(tpl.id)).source).toBe('b');
    await c.content.templates.updateBuffer(tpl.id, { source: 'd' });
    expect((await c.content.templates.pushBufferLive(tpl.id)).source).toBe('d');
    expect((await c.content.templates.pushBufferLiveAndUpdate(tpl.id, { label: 'L' })).label).toBe('L');
    const tv = await c.content.templates.listVersions(tpl.id);
    expect((await c.content.templates.getVersion(tpl.id, tv[0].id)).object.label).toBe('L');
    expect((await c.content.templates.restoreVersion(tpl.id, { version_id: tv.at(-1)!.id })).source).toBe('a');
    await c.content.templates.delete(tpl.id);
    expect((await c.content.templates.restoreDeleted(tpl.id)).deleted_at).toBe(0);
  });

  it('read-only collections: domains, site maps, layouts, blogs', async () => {
    const c = clientFor(t);
    const domain = (await c.content.domains.list()).objects[0];
    expect((await c.content.domains.get(domain.id)).domain).toBe(domain.domain);
    const dv = await c.content.domains.listVersions(domain.id);
    expect((await c.content.domains.getVersion(domain.id, dv[0].id)).object.id).toBe(domain.id);

    const map = (await c.content.siteMaps.list()).objects[0];
    expect((await c.content.siteMaps.get(map.id)).name).toBe('Main site map');
    expect((await c.content.siteMaps.getBuffer(map.id)).id).toBe(map.id);
    expect((await c.content.siteMaps.hasBufferedChanges(map.id)).has_buffered_changes).toBe(false);
    const sv = await c.content.siteMaps.listVersions(map.id);
    expect((await c.content.siteMaps.getVersion(map.id, sv[0].id)).id).toBe(sv[0].id);

    const layout = (await c.content.layouts.list()).objects[0];
    expect((await c.content.layouts.get(layout.id)).label).toBe('Blog post');
    expect((await c.content.layouts.getBuffer(layout.id)).id).toBe(layout.id);
    expect((await c.content.layouts.hasBufferedChanges(layout.id)).has_buffered_changes).toBe(false);
    const lv = await c.content.layouts.listVersions(layout.id);
    expect((await c.content.layouts.getVersion(layout.id, lv[0].id)).id).toBe(lv[0].id);

    const blog = (await c.content.blogs.list()).objects[0];
    expect((await c.content.blogs.discardBuffer(blog.id)).id).toBe(blog.id);
    expect((await c.content.blogs.pushBufferLive(blog.id)).id).toBe(blog.id);
    const bv = await c.content.blogs.listVersions(blog.id);
    expect((await c.content.blogs.getVersion(blog.id, bv[0].id)).object.name).toBe('Blog');
  });

  it('authenticates with an API key (hapikey) on content routes', async () => {
    const c = clientFor(t, t.portals[0], { auth: { apiKey: t.portals[0].apiKey } });
    expect((await c.content.blogs.list()).total).toBe(1);
  });
});
