/** `svc-companion` (the built CLI: `npm run build` first) in a child process against the real
 * platform, reading the platform's credentials file; and how flags, environment and a config file
 * combine. */
import { execFile, spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, type StandaloneConfig } from '../src/config';
import { call, startTestPlatform, tempDir, type TestPlatform } from './harness';

const BIN = fileURLToPath(new URL('../bin/svc-companion.js', import.meta.url));
const run = promisify(execFile);
let t: TestPlatform;
const dir = tempDir();
const credentials = join(dir, 'credentials.json');

beforeAll(async () => {
  t = await startTestPlatform();
  writeFileSync(credentials, JSON.stringify(t.portals[0]));
});
afterAll(() => t.close());

describe('svc-companion', () => {
  it('serves the companion with the credentials file\u2019s OAuth client, and stops cleanly on SIGTERM', async () => {
    const child = spawn(
      process.execPath,
      [
        BIN,
        '--port',
        '0',
        '--base-url',
        t.baseUrl,
        '--credentials',
        credentials,
        '--outbox',
        join(dir, 'outbox.jsonl'),
        '--token-file',
        join(dir, 'tokens.json'),
      ],
      {
        env: { ...process.env, SVC_COMPANION_LINK_SECRET: 'x'.repeat(40) },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let out = '';
    child.stderr.on('data', (d) => (out += d));
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on('data', (d) => {
        out += d;
        const m = /svc companion: (http:\/\/\S+)/.exec(out);
        if (m) resolve(m[1]);
      });
      child.once('exit', () => reject(new Error(`exited: ${out}`)));
    });
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/svc$/);
    const health = await call(`${url}/healthz`);
    expect(health.json).toEqual({ status: 'ok', upstream: 'ok', pendingEvents: 0 });
    // A request Node's parser refuses gets the companion's JSON 400, not an empty one.
    const { hostname, port } = new URL(url);
    const answer = await new Promise<string>((resolve, reject) => {
      const socket = connect(Number(port), hostname, () =>
        socket.end('GET /svc/healthz HTTP/1.1\r\nHost: x\r\nBad Header\r\n\r\n'),
      );
      let text = '';
      socket
        .on('data', (d: Buffer) => (text += String(d)))
        .on('end', () => resolve(text))
        .on('error', reject);
    });
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(answer.slice(answer.indexOf('\r\n\r\n') + 4))).toEqual({
      status: 'error',
      message: 'the request is not valid HTTP',
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    expect(out).not.toContain(t.portals[0].oauth.clientSecret);
    expect(out).not.toContain(t.portals[0].oauth.refreshToken);
  });

  it('explains a missing credentials file in one line', async () => {
    const err = await run(process.execPath, [BIN, '--credentials', join(dir, 'nope.json')]).catch(
      (e: { code: number; stderr: string }) => e,
    );
    expect(err).toMatchObject({ code: 1 });
    expect((err as { stderr: string }).stderr.trim()).toBe(
      `svc-companion: cannot read the credentials file ${join(dir, 'nope.json')}`,
    );
  });

  it('names the flag to set when its port is taken', async () => {
    const taken = createServer().listen(0, '127.0.0.1');
    await new Promise((resolve) => taken.once('listening', resolve));
    const busy = (taken.address() as AddressInfo).port;
    try {
      const args = [
        BIN,
        '--port',
        String(busy),
        '--base-url',
        t.baseUrl,
        '--credentials',
        credentials,
        '--outbox',
        join(dir, 'busy-outbox.jsonl'),
        '--token-file',
        join(dir, 'busy-tokens.json'),
      ];
      const err = await run(process.execPath, args, {
        env: { ...process.env, SVC_COMPANION_LINK_SECRET: 'x'.repeat(40) },
      }).catch((e: { code: number; stderr: string }) => e);
      expect(err).toMatchObject({ code: 1 });
      expect((err as { stderr: string }).stderr.trim()).toBe(
        `svc-companion: port ${busy} is in use (another svc-companion?): stop that program, or pick a free port with --port N (or env PORT)`,
      );
    } finally {
      taken.close();
    }
  });

  it('prints its help', async () => {
    const { stdout } = await run(process.execPath, [BIN, '--help']);
    expect(stdout).toContain('--allowed-origin');
    expect(stdout).toContain('SVC_COMPANION_LINK_SECRET');
  });
});

describe('configuration', () => {
  const load = (argv: string[], env: NodeJS.ProcessEnv = {}) =>
    loadConfig(['--credentials', credentials, ...argv], env) as StandaloneConfig;

  it('uses OAuth from the credentials file by default, with one token file per client', () => {
    const c = load([]);
    expect(c.options.auth).toEqual({ oauth: t.portals[0].oauth });
    expect(c.options.tokenFile).toBe(`.data/companion-tokens.${t.portals[0].oauth.clientId.slice(0, 8)}.json`);
    expect(c).toMatchObject({
      port: 3300,
      host: '127.0.0.1',
      mount: '/svc',
      options: { baseUrl: 'http://127.0.0.1:3200' },
    });
    expect(load(['--auth', 'private-app']).options.auth).toEqual({ accessToken: t.portals[0].privateAppToken });
  });

  it('takes flags over the environment over the config file', () => {
    const file = join(dir, 'config.json');
    writeFileSync(
      file,
      JSON.stringify({
        port: 4000,
        mount: '/c',
        baseUrl: 'http://file.test',
        allowedOrigins: ['https://file.test'],
        visitor: { properties: ['phone'] },
        events: { secret: 'from-file' },
      }),
    );
    const fromFile = load(['--config', file]);
    expect(fromFile).toMatchObject({
      port: 4000,
      mount: '/c',
      options: {
        baseUrl: 'http://file.test',
        allowedOrigins: ['https://file.test'],
        visitor: { properties: ['phone'] },
      },
    });
    expect(fromFile.options.events?.secret).toBe('from-file');
    const fromEnv = load(['--config', file], {
      PORT: '4100',
      SVC_BASE_URL: 'http://env.test',
      SVC_ALLOWED_ORIGINS: 'https://a.test, https://b.test',
      SVC_COMPANION_EVENTS_SECRET: 'from-env',
    });
    expect(fromEnv).toMatchObject({
      port: 4100,
      options: { baseUrl: 'http://env.test', allowedOrigins: ['https://a.test', 'https://b.test'] },
    });
    expect(fromEnv.options.events?.secret).toBe('from-env');
    const fromFlags = load(
      ['--config', file, '--port', '4200', '--base-url', 'http://flag.test', '--allowed-origin', 'https://c.test'],
      { PORT: '4100' },
    );
    expect(fromFlags).toMatchObject({
      port: 4200,
      options: { baseUrl: 'http://flag.test', allowedOrigins: ['https://c.test'] },
    });
  });

  it('names bad settings', () => {
    expect(() => load(['--port', 'x'])).toThrow(/--port must be a port number/);
    expect(() => load(['--mount', 'svc'])).toThrow(/--mount must start with/);
    expect(() => load(['--auth', 'magic'])).toThrow(/--auth must be oauth or private-app/);
    const broken = join(dir, 'broken.json');
    writeFileSync(broken, '{');
    expect(() => load(['--config', broken])).toThrow(`the config file ${broken} is not valid JSON`);
  });

  it('takes a private-app token from the environment without a credentials file', () => {
    const c = loadConfig([], { SVC_PRIVATE_APP_TOKEN: 'svc-pat-x' }) as StandaloneConfig;
    expect(c.options.auth).toEqual({ accessToken: 'svc-pat-x' });
  });
});
