/** The companion built on Express 4 — what a host app on Express 4 gets, since `express` is a peer
 * dependency: its Router, path syntax and body parsers, mounted in an Express 4 app, against the
 * real platform. */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

vi.mock('express', async () => {
  const express4 = (await import('express4')).default as unknown as Record<string, unknown>;
  return { ...express4, default: express4 };
});

const { default: express } = await import('express');
const { seedEmailDefaults } = await import('../../platform/src/store/email-seed');
const { call, identifiedVisitor, mountOn, newUtk, startTestPlatform } = await import('./harness');

let t: Awaited<ReturnType<typeof startTestPlatform>>;
let m: Awaited<ReturnType<typeof mountOn>>;
const ada = newUtk();

beforeAll(async () => {
  t = await startTestPlatform();
  await seedEmailDefaults(t.platform.services.engine, t.portals[0].portalId, t.clock.now);
  await identifiedVisitor(t, ada, { email: 'ada@example.com', firstname: 'Ada' });
  m = await mountOn(t, {
    events: { secret: 'shared-secret-of-the-backends-0123' },
    webhooks: { secret: 'the-webhook-secret-0123456789' },
  });
});
afterAll(async () => {
  await m?.close();
  await t?.close();
});

describe('on Express 4', () => {
  it('receives a signed webhook with its raw body, and refuses a changed one', async () => {
    const { createHmac } = await import('node:crypto');
    const got: number[] = [];
    m.companion.webhooks.on('workflow', (e) => void got.push(e.vid));
    const url = `${m.url}/webhooks`;
    const body = JSON.stringify({ workflowId: 1, vid: 42, portalId: 62515, email: null, properties: {}, timestamp: 1 });
    const ts = String(Date.now());
    const headers = {
      'x-svc-request-timestamp': ts,
      'x-svc-signature-v3': createHmac('sha256', 'the-webhook-secret-0123456789')
        .update(`POST${url}${body}${ts}`)
        .digest('base64'),
      'x-svc-event-id': 'express4-event',
    };
    // The companion's clock is the test platform's, set when it started: well within 5 minutes of now.
    expect((await call(url, { method: 'POST', body: body.replace('42', '43'), headers })).status).toBe(401);
    expect((await call(url, { method: 'POST', body, headers })).status).toBe(200);
    expect(got).toEqual([42]);
  });

  it('really runs on Express 4', () => {
    expect((express as unknown as { application: object }).application).toHaveProperty('del'); // removed in 5
  });

  it('answers /visitor, /forms and /healthz', async () => {
    expect((await call(`${m.url}/visitor`, { cookie: `svcutk=${ada}` })).json).toMatchObject({
      known: true,
      properties: { firstname: 'Ada' },
    });
    expect((await call(`${m.url}/forms/nope`)).status).toBe(404);
    expect((await call(`${m.url}/healthz`)).json.status).toBe('ok');
  });

  it('changes preferences with the CSRF token', async () => {
    const got = await call(`${m.url}/subscriptions`, { cookie: `svcutk=${ada}` });
    const id = got.json.types[0].id;
    const put = await call(`${m.url}/subscriptions`, {
      method: 'PUT',
      cookie: `svcutk=${ada}`,
      headers: { 'x-csrf-token': got.json.csrfToken },
      body: { subscriptions: [{ id, subscribed: false }] },
    });
    expect(put.status).toBe(200);
    expect(put.json.types[0].subscribed).toBe(false);
    const forged = await call(`${m.url}/subscriptions`, {
      method: 'PUT',
      cookie: `svcutk=${ada}`,
      headers: { 'x-csrf-token': 'x.y' },
      body: { subscriptions: [{ id, subscribed: true }] },
    });
    expect(forged.status).toBe(403);
  });

  it('accepts events, serves versioned scripts, proxies the collector, answers JSON errors', async () => {
    const ev = await call(`${m.url}/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer shared-secret-of-the-backends-0123' },
      body: { eventId: 'x', email: 'a@b.co' },
    });
    expect(ev.status).toBe(202);
    const { tracker } = await m.companion.scripts();
    expect((await fetch(`${m.url}/${tracker}`)).headers.get('cache-control')).toBe(
      'public, max-age=31536000, immutable',
    );
    const bad = await call(`${m.url}/e`, { method: 'POST', body: 'nope', headers: { 'content-type': 'text/plain' } });
    expect(bad.status).toBe(400);
    const broken = await call(`${m.url}/events`, {
      method: 'POST',
      headers: { authorization: 'Bearer shared-secret-of-the-backends-0123' },
      body: '{',
    });
    expect(broken.json).toEqual({ status: 'error', message: 'the request body is not valid JSON' });
  });
});
