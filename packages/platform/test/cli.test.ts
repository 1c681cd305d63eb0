/** `svc-platform` as a user runs it: the first start seeds the demo portal and writes its
 * credentials privately; the next start reuses the data. */
import type { ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../src/db/open';
import { startCli } from './cli-process';

const dir = mkdtempSync(join(tmpdir(), 'svc-cli-'));
const children: ChildProcess[] = [];
afterAll(() => {
  for (const c of children) c.kill('SIGKILL');
  rmSync(dir, { recursive: true, force: true });
});
const args = ['--data', join(dir, 'platform.db'), '--credentials', join(dir, 'credentials.json')];

describe('svc-platform', () => {
  it('seeds the demo portal once, with private credentials, and reuses the data', async () => {
    const first = await startCli([...args, '--seed-contacts', '2500'], children);
    expect(first.output()).toContain('Seeded demo portal 62515');
    const file = join(dir, 'credentials.json');
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    expect(creds).toMatchObject({
      portalId: 62515,
      apiKey: expect.stringMatching(/^svc-key-/),
      privateAppToken: expect.stringMatching(/^svc-pat-/),
    });
    // Not a TTY here: the secrets stay in the file, out of the output.
    expect(first.output()).not.toContain(creds.privateAppToken);
    expect(creds.inspectorKey).toMatch(/^[\w-]{24}$/);
    expect(first.output()).not.toContain(creds.inspectorKey);
    // The inspector's line follows the addresses, which is what startCli waits for.
    await expect.poll(() => first.output()).toContain(`/_inspector/  (add #key=<inspectorKey from ${file}>)`);
    expect(first.output()).not.toContain(creds.inspectorKey);
    const auth = { authorization: `Bearer ${creds.privateAppToken}` };
    const get = async (url: string) => (await fetch(first.baseUrl + url, { headers: auth })).json();

    expect((await get('/contacts/v1/contacts/statistics')).contacts).toBe(2500);
    expect((await get('/contacts/v1/forms')).map((f: { name: string }) => f.name)).toEqual([
      'Contact us',
      'Newsletter sign-up',
    ]);
    expect((await get('/contacts/v1/lists')).lists.map((l: { name: string }) => l.name)).toEqual([
      'Newsletter readers',
      'Contact form leads',
      'Acme colleagues',
    ]);
    expect((await get('/automation/v2/workflows')).workflows[0].name).toBe('Welcome new leads');
    expect((await get('/email/public/v1/subscriptions')).subscriptionDefinitions.length).toBeGreaterThan(2);
    expect((await get('/email/public/v1/campaigns')).campaigns.length).toBeGreaterThan(1);
    expect((await get('/contacts/v1/groups/widgetinformation?includeProperties=true')).properties[0].name).toBe(
      'favorite_widget',
    );

    // OAuth works with the seeded client and refresh token.
    const token = await fetch(first.baseUrl + '/auth/v1/refresh', {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'refresh_token',
        client_id: creds.oauth.clientId,
        client_secret: creds.oauth.clientSecret,
        refresh_token: creds.oauth.refreshToken,
      }),
    });
    expect(token.status).toBe(200);

    const exited = new Promise((r) => first.child.once('exit', r));
    first.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    // Closed cleanly (the WAL checkpointer stopped first): the last connection removed the WAL.
    expect(readdirSync(dir)).not.toContain('platform.db-wal');
    // As a database from before schema 15: the OAuth app's secret as a hash only.
    const appSecrets = (run: (db: ReturnType<typeof openDatabase>) => unknown) => {
      const db = openDatabase(join(dir, 'platform.db'));
      try {
        return run(db);
      } finally {
        db.close();
      }
    };
    appSecrets((db) => db.prepare('DELETE FROM app_secrets').run());
    const second = await startCli(args, children);
    expect(second.output()).not.toContain('Seeded');
    // The credentials file's secret is kept again (webhooks are signed with it), and only that one.
    expect(appSecrets((db) => db.prepare('SELECT client_id, secret FROM app_secrets').all())).toEqual([
      { client_id: creds.oauth.clientId, secret: creds.oauth.clientSecret },
    ]);
    // The same inspector key after a restart: the address people saved keeps working.
    expect(JSON.parse(readFileSync(file, 'utf8')).inspectorKey).toBe(creds.inspectorKey);
    const inspect = (key: string) =>
      fetch(`${second.baseUrl}/_inspector/api/portals`, { headers: { authorization: `Bearer ${key}` } });
    expect((await inspect(creds.inspectorKey)).status).toBe(200);
    const stats = await (await fetch(second.baseUrl + '/contacts/v1/contacts/statistics', { headers: auth })).json();
    expect(stats.contacts).toBe(2500);
    second.child.kill('SIGTERM');
  }, 60_000);

  it('sets the inspector key with --inspector-key and makes a new one with --rotate-inspector-key', async () => {
    const file = join(dir, 'keys', 'credentials.json');
    const run = async (...more: string[]) => {
      const cli = await startCli(['--memory', '--credentials', file, ...more], children);
      const key = JSON.parse(readFileSync(file, 'utf8')).inspectorKey as string;
      const status = (
        await fetch(`${cli.baseUrl}/_inspector/api/portals`, { headers: { authorization: `Bearer ${key}` } })
      ).status;
      await expect.poll(() => cli.output()).toContain('/_inspector/');
      expect(cli.output()).not.toContain(key);
      const exited = new Promise((r) => cli.child.once('exit', r));
      cli.child.kill('SIGTERM');
      await exited;
      return { key, status };
    };
    const chosen = await run('--inspector-key', 'my-own-inspector-key-1234');
    expect(chosen).toEqual({ key: 'my-own-inspector-key-1234', status: 200 });
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect((await run()).key).toBe('my-own-inspector-key-1234');
    const rotated = await run('--rotate-inspector-key');
    expect(rotated.key).not.toBe('my-own-inspector-key-1234');
    expect(rotated.status).toBe(200);
    await expect(startCli(['--memory', '--credentials', file, '--inspector-key', 'short'], children)).rejects.toThrow(
      /at least 16 characters/,
    );
  }, 30_000);

  it('keeps uploads beside the database and maps prospects from --prospects', async () => {
    const data = join(dir, 'part2');
    const mapping = join(dir, 'prospects.json');
    writeFileSync(mapping, JSON.stringify([{ prefix: '10.9.', organization: 'Cli Corp', city: 'Oslo' }]));
    const cli = await startCli(
      ['--data', join(data, 'platform.db'), '--credentials', join(data, 'credentials.json'), '--prospects', mapping],
      children,
    );
    const creds = JSON.parse(readFileSync(join(data, 'credentials.json'), 'utf8'));
    const auth = { authorization: `Bearer ${creds.privateAppToken}` };

    const form = new FormData();
    form.append('files', new Blob(['on disk'], { type: 'text/plain' }), 'disk.txt');
    const upload = await (
      await fetch(`${cli.baseUrl}/content/api/v2/files`, { method: 'POST', headers: auth, body: form })
    ).json();
    expect(readdirSync(join(data, 'files', '62515'))).toEqual([upload.objects[0].file_hash]);

    const view = [
      { eid: 'c'.repeat(32), k: '1', a: '62515', cts: String(Date.now()), vi: 'd'.repeat(32), pu: 'https://x.test/' },
    ];
    await fetch(`${cli.baseUrl}/collect/e`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain', 'x-forwarded-for': '10.9.1.1' },
      body: JSON.stringify(view),
    });
    const timeline = await (await fetch(`${cli.baseUrl}/prospects/v1/timeline`, { headers: auth })).json();
    expect(timeline.prospects.map((p: { organization: string; city: string }) => [p.organization, p.city])).toEqual([
      ['Cli Corp', 'Oslo'],
    ]);
    cli.child.kill('SIGTERM');
  }, 30_000);

  it('refuses a prospects file that is not a mapping', async () => {
    const bad = join(dir, 'bad-prospects.json');
    writeFileSync(bad, JSON.stringify([{ prefix: '10.' }]));
    await expect(startCli(['--memory', '--prospects', bad], children)).rejects.toThrow(
      'the prospects file: entry.0.organization: is required',
    );
  });

  it('puts --public-url in the URLs of records, and refuses one that is not an http(s) URL', async () => {
    const file = join(dir, 'public', 'credentials.json');
    const cli = await startCli(
      ['--memory', '--credentials', file, '--public-url', 'https://svc.example.test'],
      children,
    );
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    const blogs = await (
      await fetch(`${cli.baseUrl}/content/api/v2/blogs`, {
        headers: { authorization: `Bearer ${creds.privateAppToken}` },
      })
    ).json();
    expect(blogs.objects[0].root_url).toBe('https://svc.example.test/sites/62515/blog');
    cli.child.kill('SIGTERM');
    await expect(
      startCli(['--memory', '--credentials', file, '--public-url', 'svc.example.test'], children),
    ).rejects.toThrow(
      'publicUrl (--public-url) must be an http or https URL without query, fragment or credentials, not "svc.example.test"',
    );
  }, 30_000);

  it("signs the emails' preference links with SVC_PREFERENCES_SECRET for the page of --preferences-url, and never prints the secret", async () => {
    const secret = 'cli-link-secret-0123456789-0123456789';
    const file = join(dir, 'prefs', 'credentials.json');
    const page = 'https://www.acme.test/svc/preferences';
    const cli = await startCli(['--memory', '--credentials', file, '--preferences-url', page], children, {
      SVC_PREFERENCES_SECRET: secret,
    });
    await expect.poll(() => cli.output()).toContain(`emails' preference links: ${page}`);
    expect(cli.output()).not.toContain(secret);
    const creds = JSON.parse(readFileSync(file, 'utf8'));
    const inspect = async (path: string) =>
      (
        await fetch(`${cli.baseUrl}/_inspector/api/${path}`, {
          headers: { authorization: `Bearer ${creds.inspectorKey}` },
        })
      ).json();
    expect(await inspect('mail?portal=62515')).toMatchObject({ preferenceLinks: true, messages: [] });
    // A workflow's email, sent by the running engine: its link is the page's, and neither the
    // answers nor the process's output (its logs) show the secret.
    const call = async (method: string, path: string, body?: unknown) =>
      (
        await fetch(cli.baseUrl + path, {
          method,
          headers: { authorization: `Bearer ${creds.privateAppToken}`, 'content-type': 'application/json' },
          body: body === undefined ? undefined : JSON.stringify(body),
        })
      )
        .json()
        .catch(() => undefined);
    const [campaign] = (await call('GET', '/email/public/v1/campaigns')).campaigns;
    const flow = await call('POST', '/automation/v2/workflows', {
      name: 'Mail one',
      actions: [{ type: 'EMAIL', emailCampaignId: campaign.id }],
    });
    await call('POST', '/contacts/v1/contact', { properties: [{ property: 'email', value: 'cli@acme.test' }] });
    await call('POST', `/automation/v2/workflows/${flow.id}/enrollments/contacts/cli@acme.test`);
    await expect.poll(async () => (await inspect('mail?portal=62515')).messages.length, { timeout: 10_000 }).toBe(1);
    const { messages } = await inspect('mail?portal=62515');
    const message = await inspect(`mail/${messages[0].id}?portal=62515`);
    expect(message.text).toContain(`Manage your email preferences: ${page}?token=`);
    expect(JSON.stringify(message)).not.toContain(secret);
    expect(cli.output()).not.toContain(secret);
    cli.child.kill('SIGTERM');

    // Without them it says how to turn them on; half of them is refused, the secret unnamed.
    const bare = await startCli(['--memory', '--credentials', join(dir, 'prefs', 'bare.json')], children);
    await expect
      .poll(() => bare.output())
      .toContain('emails carry no preference link (set SVC_PREFERENCES_URL and SVC_PREFERENCES_SECRET');
    bare.child.kill('SIGTERM');
    await expect(startCli(['--memory', '--preferences-url', page], children)).rejects.toThrow(
      '--preferences-url (SVC_PREFERENCES_URL) needs env SVC_PREFERENCES_SECRET too',
    );
    await expect(startCli(['--memory'], children, { SVC_PREFERENCES_SECRET: secret })).rejects.toThrow(
      'give --preferences-url URL (or env SVC_PREFERENCES_URL) too',
    );
    const short = await startCli(['--memory'], children, {
      SVC_PREFERENCES_URL: page,
      SVC_PREFERENCES_SECRET: 'too-short-secret',
    }).catch((err: Error) => err.message);
    expect(short).toContain('preferenceLinks.secret (SVC_PREFERENCES_SECRET) must be');
    expect(short).not.toContain('too-short-secret');
    // Six platform processes started one after the other and a workflow's email sent by the
    // running engine: beside the rest of the suite on two cores that took over 30 s twice in CI.
  }, 60_000);

  it('names the flag to set when a port is taken', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const busy = String((taken.address() as AddressInfo).port);
    try {
      for (const flag of ['--port', '--forms-port'])
        await expect(
          startCli(['--memory', '--credentials', join(dir, 'busy.json'), flag, busy], children),
        ).rejects.toThrow(
          `svc-platform: port ${busy} is in use (another svc-platform or npm start?): stop that program, or pick a free port with ${flag} N`,
        );
    } finally {
      taken.close();
    }
  });

  it('limits the collector per address by --collector-rate-limit', async () => {
    const cli = await startCli(
      ['--memory', '--credentials', join(dir, 'collector', 'credentials.json'), '--collector-rate-limit', '2'],
      children,
    );
    // Invalid pixels (400): the limit counts them before the event is read.
    const statuses = [];
    for (let i = 0; i < 3; i++) statuses.push((await fetch(`${cli.baseUrl}/collect/p.gif?k=1`)).status);
    expect(statuses).toEqual([400, 400, 429]);
    cli.child.kill('SIGTERM');
  });

  it('refuses a bad flag value with a clear message, before it writes anything (the inspector key to the credentials file)', async () => {
    const file = join(dir, 'refused', 'credentials.json');
    const refused = (...more: string[]) => startCli(['--memory', '--credentials', file, ...more], children);
    await expect(refused('--rate-limit', 'lots')).rejects.toThrow('--rate-limit must be a whole number, not "lots"');
    await expect(refused('--webhook-retry-hours', 'a day')).rejects.toThrow(
      '--webhook-retry-hours must be a whole number, not "a day"',
    );
    await expect(refused('--seed-contacts', 'many')).rejects.toThrow(
      '--seed-contacts must be a whole number, not "many"',
    );
    await expect(refused('--collector-rate-limit', '1.5')).rejects.toThrow(
      '--collector-rate-limit must be a whole number, not "1.5"',
    );
    await expect(refused('--database', 'postgres://127.0.0.1/x')).rejects.toThrow(
      '--database and --data/--memory name two places for the data: give one',
    );
    // Refused by the platform's own checks, after the CLI's.
    const prefs = { SVC_PREFERENCES_URL: 'https://example.test/prefs', SVC_PREFERENCES_SECRET: 'too-short-secret' };
    await expect(startCli(['--memory', '--credentials', file], children, prefs)).rejects.toThrow(
      'preferenceLinks.secret (SVC_PREFERENCES_SECRET) must be',
    );
    expect(existsSync(file)).toBe(false);
  });
});
