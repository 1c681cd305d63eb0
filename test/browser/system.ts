/** The whole system for end-to-end tests: the platform (temp SQLite file, random ports, the demo
 * portal seeded, the inspector on) and the demo website with the companion mounted at /svc, as
 * `npm start` runs them. Stopped by the test's afterAll. */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type RequestListener } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import { join } from 'node:path';
import { createPlatform, seedDemo, DEMO_PORTAL } from '@svc/platform';
// @ts-expect-error plain ESM script without types
import { createDemoSite } from '../../demo/server.mjs';
// @ts-expect-error plain ESM script without types
import { thanksWorkflow } from '../../demo/workflows.mjs';

interface StoredEvent {
  eid: string;
  portal_id: number;
  kind: number;
  utk: string;
  timestamp: number;
  url: string | null;
  title: string | null;
  event_name: string | null;
  value: number | null;
  data: string;
}

export type WireEvent = Record<string, string>;
export const INSPECTOR_KEY = 'e2e-inspector-key';
export const LINK_SECRET = 'e2e-link-secret-'.padEnd(40, 'x');

export async function startSystem() {
  const dir = mkdtempSync(join(os.tmpdir(), 'svc-e2e-'));
  // The site's address first: the platform's emails link to its preference centre (as npm start).
  let siteHandler: RequestListener = (_req, res) => res.writeHead(503).end();
  const site = createServer((req, res) => siteHandler(req, res));
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve));
  const siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`;
  const platform = createPlatform({
    database: join(dir, 'platform.db'),
    inspectorKey: INSPECTOR_KEY,
    logger: false,
    preferenceLinks: { url: `${siteUrl}/svc/preferences`, secret: LINK_SECRET },
  });
  const { db } = platform;
  if (!db) throw new Error('the system runs on a SQLite file'); // received() reads it
  await platform.ready;
  const credentials = (await seedDemo(platform.services))!;
  const { baseUrl, formsUrl } = await platform.listen({ basePort: 0, formsPort: 0 });
  const contactForm = (await platform.services.forms.list(platform.services.engine, DEMO_PORTAL)).find(
    (f) => f.name == 'Contact us',
  )!;
  const { app, companion } = createDemoSite({
    baseUrl,
    formsUrl,
    credentials,
    contactFormId: contactForm.guid,
    dataDir: dir,
    linkSecret: LINK_SECRET,
    logger: false,
  });
  siteHandler = app;
  // The contact form's thanks email (demo/workflows.mjs), caught for the inspector's mail view.
  await thanksWorkflow(platform, contactForm.guid);

  /** The platform's API with the demo portal's private-app token. */
  async function api(path: string, { method = 'GET', body }: { method?: string; body?: unknown } = {}) {
    const res = await fetch(baseUrl + path, {
      method,
      headers: {
        authorization: `Bearer ${credentials.privateAppToken}`,
        ...(body !== undefined && { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    return { status: res.status, json: await res.json().catch(() => undefined) };
  }
  /** What the platform stored for this visitor: each event as received, its named columns in the
   * wire format's names beside what `data` keeps (the rest; an event of the HTTP events API
   * arrives in that API's own shape). */
  const received = (utk: string): WireEvent[] =>
    (
      db
        .prepare(
          'SELECT eid, portal_id, kind, utk, timestamp, url, title, event_name, value, data FROM tracking_events WHERE utk = ? ORDER BY seq',
        )
        .all(utk) as StoredEvent[]
    ).map((r) => ({
      ...JSON.parse(r.data),
      eid: r.eid,
      a: String(r.portal_id),
      k: String(r.kind),
      vi: r.utk,
      cts: String(r.timestamp),
      pu: r.url ?? undefined,
      t: r.title ?? undefined,
      n: r.event_name ?? undefined,
      m: r.value == null ? undefined : String(r.value),
    }));

  return {
    baseUrl,
    formsUrl,
    siteUrl,
    inspectorUrl: `${baseUrl}/_inspector/#key=${INSPECTOR_KEY}`,
    platform,
    companion,
    api,
    received,
    async close() {
      site.closeAllConnections();
      await new Promise((resolve) => site.close(resolve));
      await companion.close({ timeoutMs: 2000 });
      await platform.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

export type System = Awaited<ReturnType<typeof startSystem>>;
