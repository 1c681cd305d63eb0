/** Files and folders through the client (multipart uploads included), against the real platform. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { clientFor, startTestPlatform, type TestPlatform } from './harness';

let t: TestPlatform;
beforeAll(async () => {
  t = await startTestPlatform();
});
afterAll(() => t.close());

describe('files', () => {
  it('uploads, replaces, reads, lists, archives, moves, deletes, restores and fully deletes a file', async () => {
    const c = clientFor(t);
    const { objects } = await c.content.files.upload({
      files: new File(['hello'], 'hello.txt', { type: 'text/plain' }),
      folder_paths: '/client',
    });
    const file = objects[0];
    expect(await (await fetch(file.url!)).text()).toBe('hello');
    expect(
      (
        await c.content.files.replace(file.id, {
          files: new File(['hello again'], 'hello.txt', { type: 'text/plain' }),
        })
      ).size,
    ).toBe(11);
    expect((await c.content.files.get(file.id)).name).toBe('hello');
    expect((await c.content.files.list({ folder_id: String(file.folder_id) })).total).toBe(1);
    const versions = await c.content.files.listVersions(file.id);
    expect((await c.content.files.getVersion(file.id, versions[1].id)).object.size).toBe(5);
    expect((await c.content.files.restoreVersion(file.id, { version_id: versions[1].id })).size).toBe(5);
    expect((await c.content.files.archive(file.id)).archived).toBe(true);
    expect((await c.content.files.move(file.id, { name: 'moved.txt' })).name).toBe('moved');
    expect(await c.content.files.delete(file.id)).toBeUndefined();
    expect((await c.content.files.restoreDeleted(file.id)).deleted_at).toBe(0);
    expect(await c.content.files.fullDelete(file.id)).toBeUndefined();
    await expect(c.content.files.get(file.id)).rejects.toMatchObject({ status: 404 });
  });
});

describe('folders', () => {
  it('creates, reads, lists, updates, moves, deletes, restores and keeps versions of a folder', async () => {
    const c = clientFor(t);
    const folder = await c.content.folders.create({ name: 'client-folder' });
    expect((await c.content.folders.get(folder.id)).full_path).toBe('/client-folder');
    expect((await c.content.folders.list({ name: 'client-folder' })).total).toBe(1);
    expect((await c.content.folders.update(folder.id, { name: 'renamed' })).full_path).toBe('/renamed');
    expect((await c.content.folders.move(folder.id, { folder_path: '/parent' })).full_path).toBe('/parent/renamed');
    const versions = await c.content.folders.listVersions(folder.id);
    expect((await c.content.folders.getVersion(folder.id, versions.at(-1)!.id)).object.name).toBe('client-folder');
    expect((await c.content.folders.restoreVersion(folder.id, { version_id: versions.at(-1)!.id })).full_path).toBe(
      '/client-folder',
    ); // the version's place too
    expect(await c.content.folders.delete(folder.id)).toBeUndefined();
    expect((await c.content.folders.restoreDeleted(folder.id)).deleted_at).toBe(0);
  });
});
