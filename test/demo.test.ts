/** The demo site of `npm start`: pages under a strict CSP, the built tracker, and the dev
 * collector speaking the tracker's wire format (packages/tracker/README.md). */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
// @ts-expect-error plain ESM script without types
import { createDemoServer } from '../demo/server.mjs';

let base: string;
let server: import('node:http').Server;

beforeAll(async () => {
  vi.spyOn(console, 'log').mockImplementation(() => {});
  server = createDemoServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => new Promise((resolve) => server.close(resolve)));

const event = (eid: string, extra: Record<string, string> = {}) => ({
  eid: eid.repeat(32).slice(0, 32),
  k: '3',
  a: '62515',
  cts: String(Date.now()),
  n: 'buy-clicked',
  ...extra,
});
const post = (body: string, type = 'text/plain;charset=UTF-8') =>
  fetch(`${base}/collect/e`, { method: 'POST', body, headers: { 'Content-Type': type } });

describe('demo server', () => {
  it('serves the pages under a strict Content-Security-Policy, and the built tracker', async () => {
    const page = await fetch(`${base}/`);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await page.text();
    expect(html).toContain('src="/tracker.js" data-portal-id="62515" data-collector="/collect"');
    expect(html).not.toMatch(/<script(?![^>]*src)[^>]*>|style=/); // no inline script or style
    const tracker = await fetch(`${base}/tracker.js`);
    expect(await tracker.text()).toBe(readFileSync('packages/tracker/dist/tracker.js', 'utf8'));
  });

  it('collects batches: records valid events once, rejects invalid ones by name', async () => {
    const res = await post(JSON.stringify([event('a'), event('b', { k: '9' })]));
    expect(res.status).toBe(200);
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    expect(await res.json()).toEqual({
      accepted: 1,
      duplicates: 0,
      rejected: [{ eid: 'b'.repeat(32), message: 'event 1: "k" must be "1" (page view) or "3" (event)' }],
    });
    expect(await (await post(JSON.stringify([event('a')]))).json()).toMatchObject({ accepted: 0, duplicates: 1 });
    const recent = await (await fetch(`${base}/collect/recent`)).json();
    expect(recent.filter((e: { eid: string }) => e.eid == 'a'.repeat(32))).toHaveLength(1);
  });

  it('answers 400 with a JSON error naming the problem for a bad body', async () => {
    for (const [body, message] of [
      ['{not json', 'body is not valid JSON'],
      ['{}', 'body must be a JSON array of events'],
      ['[]', 'a batch holds 1 to 50 events, got 0'],
    ]) {
      const res = await post(body);
      expect(res.status).toBe(400);
      expect(await res.json()).toEqual({ status: 'error', message });
    }
  });

  it('answers the GET pixel with a GIF', async () => {
    const res = await fetch(`${base}/collect/p.gif?${new URLSearchParams(event('c'))}`);
    expect(res.headers.get('content-type')).toBe('image/gif');
    expect(Buffer.from(await res.arrayBuffer()).subarray(0, 6).toString()).toBe('GIF89a');
  });
});
