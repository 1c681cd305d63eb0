/** Snapshots over real HTTP (`GET|PUT /_admin/snapshot`): export, change things, import, and every
 * resource answers as it did (contacts, lists, forms and their submissions, content, files and
 * their bytes, properties, workflows, tracked events, email events); a cut or foreign file is
 * refused with a 400 naming the problem and the state stays as it was; no admin key, no
 * snapshot. On PostgreSQL, a SQLite platform's snapshot loads into it and answers the same. */
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createPlatform, createPortal, issuePortalCredentials, type Platform } from '../src';
import { seedEmailDefaults } from '../src/store/email-seed';
import { fetchJson, startPlatform, TEST_ENGINE, type TestPlatform } from './harness';

const ADMIN_KEY = 'admin-key-for-the-snapshot-tests';
const admin = { authorization: `Bearer ${ADMIN_KEY}` };
const PORTAL = 62515;

/** What a test needs of a running platform: its addresses and the first portal's token. */
interface Target {
  baseUrl: string;
  formsUrl: string;
  auth: { authorization: string };
}
const call = (p: Target, method: string, path: string, body?: unknown) =>
  fetchJson(p.baseUrl + path, { method, body, headers: p.auth });

let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ adminKey: ADMIN_KEY, rateLimit: { max: 1_000_000, windowMs: 10_000 } });
});
afterAll(() => t?.close());
const target = (): Target => ({ baseUrl: t.baseUrl, formsUrl: t.formsUrl, auth: t.portals[0].auth });

/** Something of every kind, made through the API; resolves to what `sample` reads them by. */
async function fill(p: Target, platform: Platform, now: number) {
  await seedEmailDefaults(platform.services.engine, PORTAL, now); // campaigns with email events
  const property = await call(p, 'PUT', '/contacts/v1/properties/favourite_colour', {
    name: 'favourite_colour',
    label: 'Favourite colour',
    type: 'string',
    fieldType: 'text',
    groupName: 'contactinformation',
  });
  expect(property.status, property.text).toBe(200);
  const made = await call(p, 'POST', '/contacts/v1/contact', {
    properties: [
      { property: 'email', value: 'ada@acme.test' },
      { property: 'favourite_colour', value: 'teal' },
    ],
  });
  expect(made.status, made.text).toBe(200);
  const vid = made.json.vid as number;
  const list = await call(p, 'POST', '/contacts/v1/lists', { name: 'Kept' });
  await call(p, 'POST', `/contacts/v1/lists/${list.json.listId}/add`, { vids: [vid] });
  const form = await call(p, 'POST', '/contacts/v1/forms', { name: 'Signup', fields: [{ name: 'email' }] });
  expect(form.status, form.text).toBe(200);
  const submitted = await fetch(`${p.formsUrl}/uploads/form/v2/${PORTAL}/${form.json.guid}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: 'email=grace%40acme.test',
  });
  expect(submitted.status).toBeLessThan(300);
  const blogId = (await call(p, 'GET', '/content/api/v2/blogs')).json.objects[0].id;
  const post = await call(p, 'POST', '/content/api/v2/blog-posts', {
    name: 'Kept post',
    content_group_id: blogId,
    post_body: '<p>kept</p>',
  });
  const upload = new FormData();
  const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]);
  upload.append('files', new Blob([png], { type: 'image/png' }), 'logo.png');
  const file = await fetch(p.baseUrl + '/content/api/v2/files', { method: 'POST', headers: p.auth, body: upload });
  expect(file.status).toBeLessThan(300);
  const fileId = ((await file.json()) as { objects: { id: number }[] }).objects[0].id;
  const workflow = await call(p, 'POST', '/automation/v2/workflows', {
    name: 'Kept flow',
    actions: [{ type: 'SET_CONTACT_PROPERTY', propertyName: 'firstname', newValue: 'Ada' }],
  });
  const event = await call(p, 'POST', '/v1/event', { eventName: 'trial-started', email: 'ada@acme.test' });
  expect(event.status, event.text).toBe(204);
  return {
    vid,
    listId: list.json.listId as number,
    guid: form.json.guid as string,
    postId: post.json.id as number,
    fileId,
    workflowId: workflow.json.id as number,
  };
}
type Made = Awaited<ReturnType<typeof fill>>;

/** The answers of a sample of every resource, the platform's own address taken out. */
async function sample(p: Target, m: Made) {
  const paths = [
    `/contacts/v1/contact/vid/${m.vid}/profile`,
    '/contacts/v1/contact/email/grace@acme.test/profile',
    '/contacts/v1/lists',
    `/contacts/v1/lists/${m.listId}/contacts/all`,
    `/contacts/v1/forms/${m.guid}`,
    '/contacts/v1/properties',
    `/content/api/v2/blog-posts/${m.postId}`,
    `/content/api/v2/files/${m.fileId}`,
    `/automation/v2/workflows/${m.workflowId}`,
    `/events/v3/events?objectType=contact&objectId=${m.vid}`,
    '/email/public/v1/events?limit=5',
    '/email/public/v1/campaigns',
  ];
  const answers: Record<string, unknown> = {};
  for (const path of paths) {
    const res = await call(p, 'GET', path);
    // An error's ids are new on every answer.
    const json = JSON.parse(res.text.split(p.baseUrl).join('{base}')) as Record<string, unknown>;
    delete json.correlationId;
    delete json.requestId;
    answers[path] = [res.status, json];
  }
  const file = (answers[`/content/api/v2/files/${m.fileId}`] as [number, { url: string }])[1];
  const bytes = await fetch(file.url.replace('{base}', p.baseUrl));
  answers.fileBytes = [bytes.status, Buffer.from(await bytes.arrayBuffer()).toString('hex')];
  return answers;
}

const exported = async (p: Target) => {
  const res = await fetch(`${p.baseUrl}/_admin/snapshot`, { headers: admin });
  expect(res.status).toBe(200);
  expect(res.headers.get('content-type')).toBe('application/gzip');
  return Buffer.from(await res.arrayBuffer());
};
/** PUT /_admin/snapshot with `body` as the bytes sent; the answer's JSON decoded. */
async function imported(p: Target, body: Buffer | string, headers: Record<string, string> = admin) {
  const res = await fetch(`${p.baseUrl}/_admin/snapshot`, {
    method: 'PUT',
    body: typeof body == 'string' ? body : new Uint8Array(body),
    headers: { 'content-type': 'application/gzip', ...headers },
  });
  const text = await res.text();
  return { status: res.status, text, json: JSON.parse(text) as { message?: string; imported?: unknown } };
}

describe('snapshots', () => {
  it('need the admin key', async () => {
    expect((await fetch(`${t.baseUrl}/_admin/snapshot`)).status).toBe(401);
    expect(
      (await fetch(`${t.baseUrl}/_admin/snapshot`, { headers: { authorization: 'Bearer not-the-admin-key' } })).status,
    ).toBe(401);
    // A portal's token is named as such (admin/guard.ts).
    expect((await fetch(`${t.baseUrl}/_admin/snapshot`, { headers: t.portals[0].auth })).status).toBe(403);
    expect((await imported(target(), 'x', {})).status).toBe(401);
  });

  let made: Made;
  it('export, change things, import: every resource answers as before', async () => {
    made = await fill(target(), t.platform, t.clock.now);
    const before = await sample(target(), made);
    const file = await exported(target());

    // Changes of every kind.
    await call(target(), 'POST', `/contacts/v1/contact/vid/${made.vid}/profile`, {
      properties: [{ property: 'favourite_colour', value: 'red' }],
    });
    await call(target(), 'DELETE', `/contacts/v1/lists/${made.listId}`);
    await call(target(), 'DELETE', `/contacts/v1/forms/${made.guid}`);
    await call(target(), 'DELETE', `/content/api/v2/blog-posts/${made.postId}`);
    await call(target(), 'DELETE', `/automation/v2/workflows/${made.workflowId}`);
    await call(target(), 'POST', '/contacts/v1/properties/favourite_colour', { label: 'Colour' });
    const added = await call(target(), 'POST', '/contacts/v1/contact', {
      properties: [{ property: 'email', value: 'new@acme.test' }],
    });
    const changed = await sample(target(), made);
    expect(changed).not.toEqual(before);

    // A cut file and a foreign one are refused, naming the problem, and nothing changes.
    const cut = await imported(target(), file.subarray(0, Math.floor(file.length / 2)));
    expect(cut.status).toBe(400);
    expect(cut.json.message).toMatch(/not whole gzip \(cut short\?\)/);
    const foreign = await imported(target(), '{"hello":"world"}\n');
    expect(foreign.status).toBe(400);
    expect(foreign.json.message).toMatch(/not an svc-platform snapshot/);
    expect(await sample(target(), made)).toEqual(changed);

    const loaded = await imported(target(), file);
    expect(loaded.status, loaded.text).toBe(200);
    expect(loaded.json.imported).toMatchObject({ files: 1 });
    expect(await sample(target(), made)).toEqual(before);
    expect((await call(target(), 'GET', '/contacts/v1/contact/email/new@acme.test/profile')).status).toBe(404);
    // The numbering is the snapshot's too: the next contact gets the id the lost one had.
    const again = await call(target(), 'POST', '/contacts/v1/contact', {
      properties: [{ property: 'email', value: 'again@acme.test' }],
    });
    expect(again.json.vid).toBe(added.json.vid);
  });

  it('refuses a cut plain-text file by its missing last line, and one whose counts do not add up', async () => {
    const { gunzipSync } = await import('node:zlib');
    const lines = gunzipSync(await exported(target()))
      .toString()
      .trimEnd()
      .split('\n');
    const cut = await imported(target(), lines.slice(0, -3).join('\n') + '\n');
    expect(cut.status).toBe(400);
    expect(cut.json.message).toMatch(/ends at line \d+ before its last line \(cut short\?\)|is not/);
    const last = JSON.parse(lines[lines.length - 1]);
    const miscounted = [...lines.slice(0, -1), JSON.stringify({ ...last, rows: last.rows + 1 })].join('\n');
    const wrong = await imported(target(), miscounted);
    expect(wrong.status).toBe(400);
    expect(wrong.json.message).toMatch(/last line counts/);
  });

  it('exports to a file through a temporary file: a failed export leaves no part behind', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'svc-export-'));
    try {
      const file = join(dir, 'state.jsonl.gz');
      writeFileSync(file, 'the previous snapshot');
      await t.platform.snapshots.exportToFile(file);
      expect((await imported(target(), readFileSync(file))).status).toBe(200);
      // Renaming over a directory fails: what was there stays, and so does nothing else.
      const taken = join(dir, 'taken');
      mkdirSync(join(taken, 'inside'), { recursive: true });
      await expect(t.platform.snapshots.exportToFile(taken)).rejects.toThrow();
      expect(readdirSync(dir).sort()).toEqual(['state.jsonl.gz', 'taken']);
      expect(readdirSync(taken)).toEqual(['inside']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it.runIf(TEST_ENGINE == 'postgres')('carries a SQLite platform into PostgreSQL', async () => {
    const now = t.clock.now;
    const sqlite = createPlatform({ database: ':memory:', logger: false, adminKey: ADMIN_KEY, now: () => now });
    try {
      const { baseUrl, formsUrl } = await sqlite.listen({ basePort: 0, formsPort: 0 });
      const { engine } = sqlite.services;
      await createPortal(engine, sqlite.services, { id: PORTAL, name: 'from sqlite', tier: 'enterprise', now });
      const creds = await issuePortalCredentials(engine, PORTAL, now);
      const source = { baseUrl, formsUrl, auth: { authorization: `Bearer ${creds.privateAppToken}` } };
      const m = await fill(source, sqlite, now);
      const there = await sample(source, m);
      const loaded = await imported(target(), await exported(source));
      expect(loaded.status, loaded.text).toBe(200);
      // The SQLite portal's own token works on PostgreSQL now: its credentials came along.
      expect(await sample({ ...target(), auth: source.auth }, m)).toEqual(there);
    } finally {
      await sqlite.close();
    }
  });
});
