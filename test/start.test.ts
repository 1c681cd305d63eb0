/** `npm start`'s program (demo/start.mjs) as a process: it starts everything, prints where to
 * look, serves the demo against the platform, stops cleanly on Ctrl-C, and reuses its data. */
import { execFileSync, spawn } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(os.tmpdir(), 'svc-start-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** Runs demo/start.mjs on random ports until its banner is out; returns the banner's lines. */
async function start() {
  const child = spawn(process.execPath, ['demo/start.mjs'], {
    env: { ...process.env, DATA_DIR: dir, PORT: '0', PLATFORM_PORT: '0', FORMS_PORT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const lines: string[] = [];
  for await (const line of createInterface({ input: child.stdout })) {
    lines.push(line);
    if (/Ctrl\+C stops everything/.test(line)) break;
  }
  if (!lines.length) throw new Error(`demo/start.mjs printed nothing:\n${stderr}`);
  const url = (label: string) =>
    lines
      .find((l) => l.trim().startsWith(label))!
      .trim()
      .split(/\s+/)[label.split(' ').length];
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
  return {
    child,
    lines,
    site: url('Demo website'),
    inspector: url('Inspector'),
    mail: url('Caught emails'),
    api: url('Platform API'),
    exited,
  };
}

describe('npm start', () => {
  it('starts the platform and the demo, prints their addresses, and stops on Ctrl-C; a second start reuses the data', async () => {
    const first = await start();
    expect(first.lines.join('\n')).toContain(`Seeded the demo portal in ${dir}/`);
    expect(first.site).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/);
    // Not a terminal: the inspector's key stays in the credentials file, out of the output.
    expect(first.inspector).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_inspector\/$/);
    const { inspectorKey } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
    expect(inspectorKey).toMatch(/^[\w-]{24}$/);
    expect(first.lines.join('\n')).not.toContain(inspectorKey);
    expect((await fetch(first.site)).status).toBe(200);
    expect(await (await fetch(`${first.site}svc/healthz`)).json()).toMatchObject({ status: 'ok', upstream: 'ok' });
    expect((await fetch(`${first.api}/contacts/v1/contacts/statistics`)).status).toBe(401); // the API wants credentials
    // Every address the banner prints answers a page (the platform's roots are small index pages).
    const printed = first.lines.join('\n').match(/http:\/\/127\.0\.0\.1:\d+[^\s;)]*/g)!;
    expect(printed).toHaveLength(6); // site, inspector, caught emails, API, forms, companion
    expect(first.mail).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/_inspector\/mail\.html$/);
    for (const url of printed) {
      const res = await fetch(url);
      expect(res.status, url).toBe(200);
      expect(res.headers.get('content-type'), url).toMatch(/^(text\/html|application\/json)/);
    }
    expect(await (await fetch(first.api)).text()).toContain(`${first.api}/openapi.json`);
    // The site hears of leads through the workflow's signed webhook (the companion checks it).
    const { privateAppToken } = JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8'));
    const api = (method: string, path: string, body?: object) =>
      fetch(`${first.api}${path}`, {
        method,
        headers: { authorization: `Bearer ${privateAppToken}`, 'content-type': 'application/json' },
        body: body ? JSON.stringify(body) : undefined,
      });
    const flows = (await (await api('GET', '/automation/v2/workflows')).json()).workflows as {
      id: number;
      name: string;
    }[];
    const leads = flows.find((w) => w.name == 'Tell the site about contact-form leads')!;
    expect(
      (
        await api('POST', '/contacts/v1/contact', {
          properties: [
            { property: 'email', value: 'lead@acme.test' },
            { property: 'firstname', value: 'Lea' },
          ],
        })
      ).status,
    ).toBe(200);
    expect((await api('POST', `/automation/v2/workflows/${leads.id}/enrollments/contacts/lead@acme.test`)).status).toBe(
      204,
    );
    await expect
      .poll(async () => (await (await fetch(`${first.site}api/notified`)).json()).notified, { timeout: 10_000 })
      .toEqual([expect.objectContaining({ workflowId: leads.id, firstname: 'Lea' })]);
    // A contact-form lead gets the thanks email, caught for the inspector's mail view, with a
    // preference link the site's companion accepts (the platform signs it with the demo's secret).
    const thanks = flows.find((w) => w.name == 'Thank contact-form leads')!;
    expect(
      (await api('POST', `/automation/v2/workflows/${thanks.id}/enrollments/contacts/lead@acme.test`)).status,
    ).toBe(204);
    const mail = (path: string) =>
      fetch(`${first.api}/_inspector/api/${path}`, { headers: { authorization: `Bearer ${inspectorKey}` } }).then((r) =>
        r.json(),
      );
    await expect
      .poll(async () => (await mail('mail?portal=62515')).messages, { timeout: 10_000 })
      .toEqual([
        expect.objectContaining({
          to: 'lead@acme.test',
          subject: 'Thanks for getting in touch',
          workflowId: thanks.id,
          preferenceLink: true,
        }),
      ]);
    const message = await mail(`mail/${(await mail('mail?portal=62515')).messages[0].id}?portal=62515`);
    const link = /Manage your email preferences: (\S+)/.exec(message.text)![1];
    expect(link.startsWith(`${first.site}svc/preferences?token=`)).toBe(true);
    const prefs = await fetch(link.replace('/svc/preferences?', '/svc/subscriptions?'));
    expect(prefs.status).toBe(200);
    expect(await prefs.json()).toMatchObject({ email: 'l•••@acme.test', unsubscribedFromAll: false });
    const { linkSecret } = JSON.parse(readFileSync(join(dir, 'demo-secrets.json'), 'utf8'));
    expect(JSON.stringify(message)).not.toContain(linkSecret);
    expect(first.lines.join('\n')).not.toContain(linkSecret);
    expect(statSync(join(dir, 'credentials.json')).mode & 0o777).toBe(0o600);
    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);

    const second = await start();
    expect(second.lines.join('\n')).toContain(`Reusing the data in ${dir}/`);
    expect(JSON.parse(readFileSync(join(dir, 'credentials.json'), 'utf8')).inspectorKey).toBe(inspectorKey);
    expect((await fetch(second.site)).status).toBe(200);
    // The site is at another port now: the workflow points there instead, and there is one.
    const again = (
      await (
        await fetch(`${second.api}/automation/v2/workflows`, {
          headers: { authorization: `Bearer ${privateAppToken}` },
        })
      ).json()
    ).workflows;
    expect(again.filter((w: { name: string }) => w.name == 'Tell the site about contact-form leads')).toHaveLength(1);
    expect(again.filter((w: { name: string }) => w.name == 'Thank contact-form leads')).toHaveLength(1);
    second.child.kill('SIGTERM');
    expect(await second.exited).toBe(0);
  }, 30_000);
});

describe('npm start on a taken port', () => {
  it('names the variable to set', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const busy = (taken.address() as AddressInfo).port;
    try {
      for (const variable of ['PORT', 'PLATFORM_PORT']) {
        const data = mkdtempSync(join(os.tmpdir(), 'svc-start-busy-'));
        const env = {
          ...process.env,
          DATA_DIR: data,
          PORT: '0',
          PLATFORM_PORT: '0',
          FORMS_PORT: '0',
          [variable]: String(busy),
        };
        const child = spawn(process.execPath, ['demo/start.mjs'], { env, stdio: ['ignore', 'pipe', 'pipe'] });
        let err = '';
        child.stderr.on('data', (d) => (err += d));
        const code = await new Promise((resolve) => child.once('exit', resolve));
        rmSync(data, { recursive: true, force: true });
        expect(code, variable).toBe(1);
        expect(err, variable).toContain(
          `npm start failed: port ${busy} is in use (another npm start?): stop that program, or set ${variable} to a free port`,
        );
      }
    } finally {
      taken.close();
    }
  });
});

describe('npm start\u2019s build step (demo/build.mjs)', () => {
  it('skips the build when no source changed since the last one, in one line', async () => {
    // `npm test` has just built everything: mark that build as the last one.
    const { stamp } = await import('../demo/build.mjs');
    stamp();
    const out = execFileSync(process.execPath, ['demo/build.mjs'], { encoding: 'utf8' });
    expect(out).toBe('build: up to date\n');
  });

  it('reads sources and settings, not the docs: editing a README does not rebuild', async () => {
    const { inputs } = await import('../demo/build.mjs');
    const files = inputs().map((f) => f.replaceAll('\\', '/'));
    expect(files.some((f) => f.endsWith('/packages/platform/src/app.ts'))).toBe(true);
    expect(files.some((f) => f.endsWith('/packages/tracker/package.json'))).toBe(true);
    expect(files.filter((f) => f.endsWith('.md') || f.includes('/docs/') || f.includes('/test/'))).toEqual([]);
  });
});
