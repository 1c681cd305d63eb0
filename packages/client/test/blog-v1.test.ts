/** The older blog API through the client, against the real platform. Atom writes take the entry
 * as XML text. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

const entry = (inner: string) =>
  `<entry xmlns="http://www.w3.org/2005/Atom" xmlns:hs="http://www.example.com/">${inner}</entry>`;

describe('blog v1', () => {
  it('reads blogs, creates, updates and publishes a post, comments, and reads it all back', async () => {
    const c = clientFor(t);
    await c.content.blogAuthors.create({ full_name: 'Ada', email: 'ada@v1.test' });
    const [blog] = await c.blogV1.listBlogs('json');
    expect((await c.blogV1.getBlog(blog.guid, 'json')).blogTitle).toBe('Blog');
    expect(await c.blogV1.getBlog(blog.guid, 'atom')).toContain('<feed');

    const post = await c.blogV1.createPost(
      blog.guid,
      entry('<title>Via client</title><author><email>ada@v1.test</email></author>'),
    );
    expect(post.draft).toBe(true);
    expect((await c.blogV1.updatePost(post.guid, entry('<summary>More</summary>'))).summary).toBe('More');
    expect((await c.blogV1.updatePost(post.guid, entry('<hs:draft>false</hs:draft>'))).draft).toBe(false);
    expect((await c.blogV1.getPost(post.guid, 'json')).title).toBe('Via client');
    expect((await c.blogV1.listPosts(blog.guid, 'json', { draft: 'false' })).map((p) => p.guid)).toEqual([post.guid]);

    const comment = await c.blogV1.createComment(
      post.guid,
      entry('<author><name>Grace</name><email>g@v1.test</email></author><content>Nice</content>'),
    );
    expect((await c.blogV1.getComment(comment.guid, 'json')).comment).toBe('Nice');
    expect((await c.blogV1.listPostComments(post.guid, 'json')).map((x) => x.guid)).toEqual([comment.guid]);
    expect((await c.blogV1.listBlogComments(blog.guid, 'json')).map((x) => x.guid)).toEqual([comment.guid]);
  });
});
