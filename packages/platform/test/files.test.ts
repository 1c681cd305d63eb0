/** Files and folders (§4.8) over HTTP: multipart uploads whose bytes come back at their URL,
 * replacement with versions, archive, soft and full delete, moves, folders with paths, and the
 * guards — size cap, content types, names and paths that try to leave the data directory. */
import { readdirSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startPlatform, type TestPlatform } from './harness';

const F = '/content/api/v2/files';
const D = '/content/api/v2/folders';
let t: TestPlatform;
beforeAll(async () => {
  t = await startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 } });
});
afterAll(() => t.close());

type Part = { bytes: string | Uint8Array<ArrayBuffer>; filename: string; type?: string };

/** A multipart POST: `files` parts plus text fields. */
async function upload(path: string, files: Part[], fields: Record<string, string> = {}, portal = t.portals[0]) {
  const form = new FormData();
  for (const f of files) form.append('files', new Blob([f.bytes], { type: f.type ?? 'text/plain' }), f.filename);
  for (const [k, v] of Object.entries(fields)) form.append(k, v);
  const res = await fetch(t.baseUrl + path, { method: 'POST', headers: portal.auth, body: form });
  return { status: res.status, json: await res.json() };
}
const bytesAt = async (url: string) => {
  const res = await fetch(url);
  return { status: res.status, type: res.headers.get('content-type'), body: Buffer.from(await res.arrayBuffer()) };
};

describe('files', () => {
  it('uploads a file whose bytes come back at its URL, with its metadata', async () => {
    const png = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 1, 2, 3, 255]);
    const res = await upload(F, [{ bytes: png, filename: 'logo.png', type: 'image/png' }], {
      folder_paths: '/brand/logos',
    });
    expect(res.status).toBe(201);
    const [file] = res.json.objects;
    expect(file).toMatchObject({
      name: 'logo',
      extension: 'png',
      type: 'IMG',
      size: 9,
      archived: false,
      hidden: false,
      deleted_at: 0,
    });
    expect(file.url).toBe(`${t.baseUrl}/hubfs/62515/${file.id}/logo.png`);
    const served = await bytesAt(file.url);
    expect(served.status).toBe(200);
    expect(served.type).toBe('image/png');
    expect([...served.body]).toEqual([...png]);
    const folder = (await t.call('GET', `${D}/${file.folder_id}`)).json;
    expect(folder).toMatchObject({ name: 'logos', full_path: '/brand/logos' });
    expect((await t.call('GET', `${F}/${file.id}`)).json).toEqual(file);
    expect((await t.call('GET', `${F}/${file.id}`, { portal: t.portals[1] })).status).toBe(404);
  });

  it('uploads several files at once, names the first with file_names, numbers duplicates, overwrites when asked', async () => {
    const res = await upload(
      F,
      [
        { bytes: 'a', filename: 'a.txt' },
        { bytes: 'b', filename: 'b.txt' },
      ],
      { file_names: 'first.txt' },
    );
    expect(res.json.objects.map((f: { name: string }) => f.name)).toEqual(['first', 'b']);
    const again = await upload(F, [{ bytes: 'b2', filename: 'b.txt' }]);
    expect(again.json.objects[0].name).toBe('b-1');
    const over = await upload(F, [{ bytes: 'b3', filename: 'b.txt' }], { overwrite: 'true' });
    expect(over.json.objects[0].id).toBe(res.json.objects[1].id);
    expect((await bytesAt(over.json.objects[0].url)).body.toString()).toBe('b3');
    const reject = await upload(F, [{ bytes: 'b4', filename: 'b.txt' }], {
      options: JSON.stringify({ duplicateValidationStrategy: 'REJECT' }),
    });
    expect(reject.status).toBe(409);
  });

  it('replaces a file keeping its id and URL; versions keep the old bytes', async () => {
    const [file] = (await upload(F, [{ bytes: 'version one', filename: 'notes.txt' }])).json.objects;
    const replaced = await upload(`${F}/${file.id}`, [{ bytes: 'version two!', filename: 'whatever.txt' }]);
    expect(replaced.status).toBe(200);
    expect(replaced.json).toMatchObject({ id: file.id, url: file.url, size: 12 });
    expect((await bytesAt(file.url)).body.toString()).toBe('version two!');
    const versions = (await t.call('GET', `${F}/${file.id}/versions`)).json;
    expect(versions).toHaveLength(2);
    expect((await t.call('GET', `${F}/${file.id}/versions/${versions[1].id}`)).json.object.size).toBe(11);
    await t.call('POST', `${F}/${file.id}/versions/restore`, { body: { version_id: versions[1].id } });
    expect((await bytesAt(file.url)).body.toString()).toBe('version one');
  });

  it('reports an image’s width and height (none for other files or unreadable images), and follows a replacement', async () => {
    // A GIF's header is its size: 'GIF89a', then width and height as 16-bit little-endian.
    const gif = (w: number, h: number) =>
      Uint8Array.from([...Buffer.from('GIF89a'), w & 255, w >> 8, h & 255, h >> 8, 0, 0, 0, 0x3b]);
    const svg = '<svg xmlns="http://www.w3.org/2000/svg" width="40" height="30"></svg>';
    const res = await upload(F, [
      { bytes: gif(300, 2), filename: 'wide.gif', type: 'image/gif' },
      { bytes: svg, filename: 'icon.svg', type: 'image/svg+xml' },
      { bytes: Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0, 1]), filename: 'broken.png', type: 'image/png' },
      { bytes: 'just text', filename: 'plain.txt' },
    ]);
    expect(res.status).toBe(201);
    const sizes = res.json.objects.map((f: { width: unknown; height: unknown }) => [f.width, f.height]);
    expect(sizes).toEqual([
      [300, 2],
      [40, 30],
      [null, null],
      [null, null],
    ]);
    const wide = res.json.objects[0];
    expect((await t.call('GET', `${F}/${wide.id}`)).json).toMatchObject({ width: 300, height: 2 });
    const replaced = await upload(`${F}/${wide.id}`, [
      { bytes: gif(16, 512), filename: 'wide.gif', type: 'image/gif' },
    ]);
    expect(replaced.json).toMatchObject({ id: wide.id, width: 16, height: 512 });
    expect((await t.call('GET', `${F}?width=16&id=${wide.id}`)).json.total).toBe(1);
  });

  it('archives (still served, out of default lists), deletes softly (404) and restores, deletes for good', async () => {
    const [file] = (await upload(F, [{ bytes: 'keep me', filename: 'archive-me.txt' }])).json.objects;
    expect((await t.call('POST', `${F}/${file.id}/archive`)).json.archived).toBe(true);
    expect((await bytesAt(file.url)).status).toBe(200);
    expect((await t.call('GET', `${F}?id=${file.id}`)).json.total).toBe(0);
    expect((await t.call('GET', `${F}?id=${file.id}&archived=true`)).json.total).toBe(1);

    expect((await t.call('DELETE', `${F}/${file.id}`)).status).toBe(204);
    expect((await bytesAt(file.url)).status).toBe(404);
    expect((await t.call('POST', `${F}/${file.id}/restore-deleted`)).json.deleted_at).toBe(0);
    expect((await bytesAt(file.url)).status).toBe(200);

    const dir = t.platform.services.files;
    expect(dir).toBeDefined();
    expect((await t.call('POST', `${F}/${file.id}/full-delete`)).status).toBe(204);
    expect((await t.call('GET', `${F}/${file.id}`)).status).toBe(404);
    expect((await bytesAt(file.url)).status).toBe(404);
    expect((await t.call('POST', `${F}/${file.id}/restore-deleted`)).status).toBe(404);
  });

  it('moves a file to another folder and renames it', async () => {
    const [file] = (await upload(F, [{ bytes: 'x', filename: 'move-me.txt' }])).json.objects;
    const moved = await t.call('POST', `${F}/${file.id}/move-file`, {
      body: { folder_path: '/archive/2026', name: 'moved.txt' },
    });
    expect(moved.json).toMatchObject({ name: 'moved', extension: 'txt' });
    expect((await t.call('GET', `${D}/${moved.json.folder_id}`)).json.full_path).toBe('/archive/2026');
    expect((await bytesAt(moved.json.url)).body.toString()).toBe('x');
    expect((await t.call('POST', `${F}/${file.id}/move-file`, { body: { folder_id: 424242 } })).json.message).toBe(
      'body.folder_id: no folder with id 424242',
    );
    expect((await t.call('POST', `${F}/${file.id}/move-file`, { body: {} })).json.message).toMatch(
      /give folder_path, folder_id or name/,
    );
  });

  it('lists files with filters and paging', async () => {
    const p = t.portals[1];
    await upload(
      F,
      [
        { bytes: '1', filename: 'one.txt' },
        { bytes: '22', filename: 'two.csv', type: 'text/csv' },
        { bytes: '333', filename: 'three.txt' },
      ],
      {},
      p,
    );
    const list = async (q: string) => (await t.call('GET', `${F}?${q}`, { portal: p })).json;
    expect((await list('')).total).toBe(3);
    expect((await list('extension=txt&order_by=-size')).objects.map((f: { name: string }) => f.name)).toEqual([
      'three',
      'one',
    ]);
    expect((await list('size__gt=1&limit=1')).objects).toHaveLength(1);
    expect((await list('name__icontains=TW')).objects[0].name).toBe('two');
  });

  it('refuses names and paths that would leave the data directory, and keeps nothing of them', async () => {
    const before = readdirSync(t.platform.services.filesRoot, { recursive: true }).length;
    const cases: [Part[], Record<string, string>, string][] = [
      [[{ bytes: 'x', filename: 'ok.txt' }], { file_names: '../../escape.txt' }, 'body.file_names'],
      [[{ bytes: 'x', filename: 'ok.txt' }], { file_names: '..' }, 'body.file_names'],
      [[{ bytes: 'x', filename: 'ok.txt' }], { file_names: 'a\\..\\b.txt' }, 'body.file_names'],
      [[{ bytes: 'x', filename: 'ok.txt' }], { folder_paths: '/docs/../../etc' }, 'body.folder_paths'],
    ];
    for (const [files, fields, field] of cases) {
      const res = await upload(F, files, fields);
      expect(res.status, JSON.stringify([fields, res.json])).toBe(400);
      expect(res.json.message.startsWith(field)).toBe(true);
    }
    // A part whose own file name is a path.
    const form = new FormData();
    form.append('files', new Blob(['x'], { type: 'text/plain' }), 'x.txt');
    const raw = await fetch(t.baseUrl + F, {
      method: 'POST',
      headers: { ...t.portals[0].auth, 'content-type': 'multipart/form-data; boundary=b' },
      body: '--b\r\nContent-Disposition: form-data; name="files"; filename="../../../evil.txt"\r\nContent-Type: text/plain\r\n\r\nx\r\n--b--\r\n',
    });
    expect(raw.status).toBe(400);
    expect((await raw.json()).message).toMatch(/^files\.0\.filename: /);
    expect((await t.call('POST', D, { body: { name: '..' } })).json.message).toMatch(/^body\.name: /);
    expect(readdirSync(t.platform.services.filesRoot, { recursive: true }).length).toBe(before);
    const [file] = (await upload(F, [{ bytes: 'y', filename: 'stay.txt' }])).json.objects;
    expect((await t.call('POST', `${F}/${file.id}/move-file`, { body: { name: '../x.txt' } })).json.message).toMatch(
      /^body\.name: /,
    );
    expect(
      (await t.call('POST', `${F}/${file.id}/move-file`, { body: { folder_path: '/a/../../b' } })).json.message,
    ).toMatch(/^body\.folder_path/);
    expect((await t.call('GET', `${D}?name=..`)).json.total).toBe(0);
  });

  it('caps the size, checks the content type and the encoding', async () => {
    const big = await upload(F, [
      { bytes: new Uint8Array(10 * 1024 * 1024 + 1), filename: 'big.bin', type: 'application/zip' },
    ]);
    expect(big.status).toBe(413);
    const html = await upload(F, [{ bytes: '<script>alert(1)</script>', filename: 'x.html', type: 'text/html' }]);
    expect(html.status).toBe(415);
    expect(html.json.message).toBe('files.0.filename: files of type text/html cannot be uploaded');
    const exe = await upload(F, [{ bytes: 'MZ', filename: 'x.exe', type: 'application/octet-stream' }]);
    expect(exe.status).toBe(415);
    // One bad part refuses the whole upload, and nothing of it is kept.
    const before = readdirSync(t.platform.services.filesRoot, { recursive: true }).length;
    const mixed = await upload(F, [
      { bytes: 'fine and new', filename: 'fine.txt' },
      { bytes: 'MZ', filename: 'y.exe', type: 'application/x-msdownload' },
    ]);
    expect(mixed.status).toBe(415);
    expect(readdirSync(t.platform.services.filesRoot, { recursive: true }).length).toBe(before);
    expect((await t.call('GET', `${F}?name=fine`)).json.total).toBe(0);
    // A form cut off inside a file is a 400, and the server carries on.
    const cut = await fetch(t.baseUrl + F, {
      method: 'POST',
      headers: { ...t.portals[0].auth, 'content-type': 'multipart/form-data; boundary=b' },
      body: '--b\r\nContent-Disposition: form-data; name="files"; filename="a.txt"\r\n\r\nno end',
    });
    expect(cut.status).toBe(400);
    expect((await cut.json()).message).toBe('the multipart body is malformed');
    expect((await t.call('GET', `${F}?limit=1`)).status).toBe(200);
    // Refused before the body is read: no credentials, no upload.
    const anonymous = await fetch(t.baseUrl + F, {
      method: 'POST',
      headers: { 'content-type': 'multipart/form-data; boundary=b' },
      body: 'x'.repeat(1000),
    });
    expect(anonymous.status).toBe(401);
    const json = await t.call('POST', F, { body: { files: 'x' } });
    expect(json.status).toBe(415);
    expect((await upload(F, [])).json.message).toBe('files: give at least one file in the multipart part "files"');
    expect((await upload(F, [{ bytes: 'x', filename: 'y.txt' }], { options: '{not json' })).json.message).toBe(
      'body.options: must be JSON',
    );
    expect((await upload(F, [{ bytes: 'x', filename: 'y.txt' }], { folder_id: 'abc' })).json.message).toBe(
      'body.folder_id: must be a positive integer',
    );
  });
});

describe('folders', () => {
  it('creates, nests, renames (subfolder paths follow), moves, lists, deletes only when empty, restores', async () => {
    const top = (await t.call('POST', D, { body: { name: 'top' } })).json;
    expect(top).toMatchObject({ name: 'top', full_path: '/top', parent_folder_id: null });
    const child = (await t.call('POST', D, { body: { name: 'child', parent_folder_id: top.id } })).json;
    const grand = (await t.call('POST', D, { body: { name: 'grand', parent_folder_id: child.id } })).json;
    expect(grand.full_path).toBe('/top/child/grand');
    expect((await t.call('POST', D, { body: { name: 'child', parent_folder_id: top.id } })).status).toBe(409);

    expect((await t.call('PUT', `${D}/${top.id}`, { body: { name: 'renamed' } })).json.full_path).toBe('/renamed');
    expect((await t.call('GET', `${D}/${grand.id}`)).json.full_path).toBe('/renamed/child/grand');

    const moved = await t.call('POST', `${D}/${child.id}/move-folder`, { body: { parent_folder_id: null } });
    expect(moved.json.full_path).toBe('/child');
    expect((await t.call('GET', `${D}/${grand.id}`)).json.full_path).toBe('/child/grand');
    expect(
      (await t.call('POST', `${D}/${child.id}/move-folder`, { body: { parent_folder_id: grand.id } })).json.message,
    ).toMatch(/into itself/);
    expect(
      (await t.call('POST', `${D}/${child.id}/move-folder`, { body: { folder_path: '/elsewhere/deep' } })).json
        .full_path,
    ).toBe('/elsewhere/deep/child');

    expect(
      (await t.call('GET', `${D}?parent_folder_id=${child.id}`)).json.objects.map((f: { name: string }) => f.name),
    ).toEqual(['grand']);
    expect((await t.call('DELETE', `${D}/${child.id}`)).json.message).toMatch(/not empty/);
    expect((await t.call('DELETE', `${D}/${grand.id}`)).status).toBe(204);
    expect((await t.call('POST', `${D}/${grand.id}/restore-deleted`)).json.deleted_at).toBe(0);

    const versions = (await t.call('GET', `${D}/${top.id}/versions`)).json;
    expect((await t.call('GET', `${D}/${top.id}/versions/${versions.at(-1).id}`)).json.object.name).toBe('top');
    expect(
      (await t.call('POST', `${D}/${top.id}/versions/restore`, { body: { version_id: versions.at(-1).id } })).json
        .full_path,
    ).toBe('/top');
    expect((await t.call('GET', `${D}/${top.id}`, { portal: t.portals[1] })).status).toBe(404);
  });

  it('restoring a deleted folder never makes two live folders with one path: a 409 naming it (issue 16)', async () => {
    const old = (await t.call('POST', D, { body: { name: 'twice' } })).json;
    expect((await t.call('DELETE', `${D}/${old.id}`)).status).toBe(204);
    const now = (await t.call('POST', D, { body: { name: 'twice' } })).json;
    const res = await t.call('POST', `${D}/${old.id}/restore-deleted`);
    expect(res.status).toBe(409);
    expect(res.json.message).toBe('a folder /twice exists already');
    expect((await t.call('GET', `${D}/${old.id}`)).json.deleted_at).toBeGreaterThan(0);
    expect((await t.call('GET', `${D}?name=twice`)).json.objects.map((f: { id: number }) => f.id)).toEqual([now.id]);

    // A folder restored under a parent renamed meanwhile takes the parent's path as it is now.
    const parent = (await t.call('POST', D, { body: { name: 'parent-before' } })).json;
    const child = (await t.call('POST', D, { body: { name: 'kid', parent_folder_id: parent.id } })).json;
    await t.call('DELETE', `${D}/${child.id}`);
    await t.call('PUT', `${D}/${parent.id}`, { body: { name: 'parent-after' } });
    expect((await t.call('POST', `${D}/${child.id}/restore-deleted`)).json.full_path).toBe('/parent-after/kid');
  });
});
