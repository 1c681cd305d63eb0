/** Shared setup for the companion's tests: the real platform (in-memory SQLite, random ports) with
 * its own moved clock, the companion at `/svc` on 127.0.0.1 through either door — mounted in an
 * Express app, or its fetch handler served by a plain node:http adapter (fetch-server.ts) — a log
 * capture (to check that no secret or personal data is logged), and a small fetch helper. The route
 * suites run once per door (`forEachDoor`). Everything is closed by the test file's afterAll. */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import express, { type Express } from 'express';
import { request } from 'undici';
import { pino } from 'pino';
import { describe } from 'vitest';
import { afterThisFile } from '../../../test/file-cleanup';
import { fetchJson, sqliteOf, startPlatform, type TestPlatform, type TestPortal } from '../../platform/test/harness';
import { createCompanion, type CompanionOptions } from '../src';
import { createCompanion as createFetchCompanion, type Companion } from '../src/fetch';
import { serveFetch, type Before } from './fetch-server';

export { sqliteOf, startPlatform, type TestPlatform, type TestPortal };
export { faultServer, json, profile, movedClock } from '../../client/test/harness';

/** The platform with its rate limit out of the way. */
export const startTestPlatform = (options: Parameters<typeof startPlatform>[0] = {}) =>
  startPlatform({ rateLimit: { max: 1_000_000, windowMs: 10_000 }, ...options });

/** A fresh directory (outbox files) under one root per test file, removed after the file's tests.
 * This module is shared by the files a worker runs, hence afterThisFile rather than an afterAll here. */
let root: string | undefined;
let made = 0;
export function tempDir() {
  if (!root) {
    const mine = (root = mkdtempSync(join(tmpdir(), 'svc-companion-')));
    afterThisFile(() => {
      rmSync(mine, { recursive: true, force: true });
      if (root == mine) root = undefined;
    });
  }
  const dir = join(root, String(++made));
  mkdirSync(dir);
  return dir;
}

/** Log lines written by the companion's pino logger. */
export function logCapture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _enc, done) {
      lines.push(...String(chunk).split('\n').filter(Boolean));
      done();
    },
  });
  return { logger: pino({ level: 'debug' }, stream), lines, text: () => lines.join('\n') };
}

/** The two ways into the companion: its Express middleware, its fetch handler. */
export type Door = 'express' | 'fetch';
export const DOORS: readonly Door[] = ['express', 'fetch'];

/** A suite once per door, each run with a setup of its own. */
export const forEachDoor = (suite: (door: Door) => void) => describe.each(DOORS)('through the %s door', suite);

export interface Mounted {
  door: Door;
  /** The companion's API (both doors have it) and its fetch handler. */
  companion: Companion;
  url: string;
  logs: ReturnType<typeof logCapture>;
  close(): Promise<void>;
}

export interface MountOptions {
  /** Default `express`. */
  door?: Door;
  /** The Express door's host app (Express 4 or 5); default a fresh Express 5 app. */
  app?: Express;
  /** Runs before the companion in either door's server; true when it answered itself. */
  before?: Before;
}

/** The companion at `/svc` on a random port: mounted in an Express app, or its fetch handler served
 * over node:http. */
export async function mount(
  options: Partial<CompanionOptions> & Pick<CompanionOptions, 'baseUrl'>,
  how: MountOptions = {},
): Promise<Mounted> {
  const logs = logCapture();
  const dir = tempDir();
  const door = how.door ?? 'express';
  const all: CompanionOptions = {
    auth: { accessToken: 'unset' },
    logger: logs.logger,
    rateLimit: false,
    client: { rateLimit: { max: Infinity }, concurrency: 50 },
    ...options,
    events: { outboxFile: join(dir, 'outbox.jsonl'), handleSigterm: false, ...options.events },
  };
  let companion: Companion;
  let server: Server;
  if (door == 'express') {
    const app = how.app ?? express();
    const before = how.before;
    if (before) app.use((req, res, next) => void (before(req, res) || next()));
    const middleware = createCompanion(all);
    app.use('/svc', middleware);
    companion = middleware;
    server = await new Promise((resolve) => {
      const s = app.listen(0, '127.0.0.1', () => resolve(s));
    });
  } else {
    companion = createFetchCompanion(all);
    ({ server } = await serveFetch(companion.fetch, how.before));
  }
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/svc`;
  return {
    door,
    companion,
    url,
    logs,
    async close() {
      await companion.close({ timeoutMs: 1_000 });
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** The companion on the platform with a portal's private-app token. */
export const mountOn = (
  t: TestPlatform,
  options: Partial<CompanionOptions> = {},
  how: MountOptions & { portal?: TestPortal } = {},
) =>
  mount(
    {
      baseUrl: t.baseUrl,
      formsUrl: t.formsUrl,
      auth: { accessToken: (how.portal ?? t.portals[0]).privateAppToken },
      now: () => t.clock.now,
      ...options,
    },
    how,
  );

/** fetch with JSON decoding; `cookie` sets the Cookie header; any body (string ones too) is
 * `application/json` unless the headers say otherwise. */
export const call = (
  url: string,
  init: { method?: string; body?: unknown; headers?: Record<string, string>; cookie?: string } = {},
) =>
  fetchJson(url, {
    method: init.method,
    body: init.body,
    headers: {
      ...(init.body !== undefined ? { 'content-type': 'application/json' } : {}),
      ...init.headers,
      ...(init.cookie ? { cookie: init.cookie } : {}),
    },
  });

/** A random visitor token as the tracker makes them. */
export const newUtk = () =>
  [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');

/** A contact linked to `utk` the way a real visitor gets linked: a form submission with
 * `svc_context`. The form has a field for each property given. */
export async function identifiedVisitor(
  t: TestPlatform,
  utk: string,
  properties: Record<string, string>,
  portal = t.portals[0],
) {
  const fields = Object.keys(properties).map((name) => ({ name }));
  const form = await t.call('POST', '/contacts/v1/forms', { body: { name: `Form ${utk}`, fields }, portal });
  if (form.status != 200) throw new Error(`form not created: ${form.status} ${form.text}`);
  const body = new URLSearchParams({ ...properties, svc_context: JSON.stringify({ svcutk: utk }) });
  const res = await fetch(`${t.formsUrl}/uploads/form/v2/${portal.portalId}/${form.json.guid}`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: body.toString(),
  });
  if (res.status >= 400) throw new Error(`form submission failed: ${res.status} ${await res.text()}`);
  return form.json.guid as string;
}

/** Events of the HTTP events API the platform recorded for the given companion event ids. */
export function recordedEvents(t: TestPlatform, ids: string[]): number {
  const stmt = sqliteOf(t).prepare('SELECT count(*) AS n FROM tracking_events WHERE eid = ?');
  return ids.reduce((n, id) => n + (stmt.get(`api:${id}`) as { n: number }).n, 0);
}

/** A pass-through proxy to the platform that counts the requests it forwards (`forwarded`, and
 * `answered` with each answer's status and time) and can be told to fail instead (`failing = true`
 * answers 503). The platform's rate-limit headers come back through it. */
export async function countingProxy(target: string) {
  // `at` when the request reached the proxy, `done` when the platform had answered it: the platform
  // saw it in between.
  const state = {
    failing: false,
    forwarded: [] as string[],
    answered: [] as { at: number; done: number; path: string; status: number }[],
  };
  const { faultServer: fs, json: send } = await import('../../client/test/harness');
  const server = await fs(async (req, res) => {
    if (state.failing) return send(res, 503, { status: 'error', message: 'down for the test' });
    const path = req.url.split('?')[0];
    state.forwarded.push(`${req.method} ${path}`);
    const at = Date.now();
    const up = await request(target + req.url, {
      method: req.method,
      headers: Object.fromEntries(
        Object.entries(req.headers).filter(([k]) => ['authorization', 'content-type'].includes(k)) as [
          string,
          string,
        ][],
      ),
      body: req.method == 'GET' || req.method == 'HEAD' ? undefined : req.body,
    });
    state.answered.push({ at, done: Date.now(), path, status: up.statusCode });
    const headers: Record<string, string> = {
      'content-type': String(up.headers['content-type'] ?? 'application/json'),
    };
    for (const [k, v] of Object.entries(up.headers))
      if (k == 'retry-after' || k.startsWith('x-svc-ratelimit')) headers[k] = String(v);
    res.writeHead(up.statusCode, headers).end(Buffer.from(await up.body.arrayBuffer()));
  });
  return Object.assign(state, { url: server.url, close: server.close });
}
