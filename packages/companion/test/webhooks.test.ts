/** Workflow webhooks end to end over real HTTP: the platform (in memory, random ports, the real
 * clock, retries shortened) calls the companion's POST /webhooks from a workflow whose contacts
 * are enrolled by a form submission. The signature is checked here by an independent
 * implementation (node:crypto over the documented string), not by the companion's own function.
 * Then forged, changed and replayed calls, duplicates, a throwing handler and shared mode. Through
 * both doors. */
import { createHmac, randomUUID, timingSafeEqual } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, forEachDoor, mount, startTestPlatform, tempDir, type Mounted, type TestPlatform } from './harness';
import type { Before } from './fetch-server';
import { haveRedis, REDIS_URL, redisPrefix } from './redis';
import type { WorkflowEvent } from '../src';
import { join } from 'node:path';

/** What the platform sent, as its fetch was asked to send it. */
interface Sent {
  url: string;
  method: string;
  headers: Record<string, string>;
  body: string;
}

/** The documented algorithm, written out again: base64(HMAC-SHA256(secret, method + url + body + timestamp)). */
const independentSignature = (secret: string, method: string, url: string, body: string, timestamp: string) =>
  createHmac('sha256', secret).update(`${method}${url}${body}${timestamp}`, 'utf8').digest('base64');

const until = async (what: string, ok: () => boolean | Promise<boolean>, ms = 15_000) => {
  const end = Date.now() + ms;
  while (!(await ok())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
};
const pause = (ms: number) => new Promise((r) => setTimeout(r, ms));

forEachDoor((door) => {
  let t: TestPlatform;
  let hooks: Mounted;
  const sent: Sent[] = [];
  /** Requests that reached the site's app at /svc/webhooks, with what the receiver answered. */
  const arrived: { eventId: string; signature: string; timestamp: string; url: string; status?: number }[] = [];
  /** While true the site answers 503 in front of the companion (the receiver is down). */
  let down = false;
  const handled: WorkflowEvent[] = [];

  beforeAll(async () => {
    t = await startTestPlatform({
      now: Date.now,
      // Retries 100–200 ms apart at first, then up to 1 s, for a minute; due attempts looked for every 50 ms.
      webhooks: { baseDelayMs: 200, maxDelayMs: 1000, retryForMs: 60_000, pollMs: 50 },
      fetch: async (input: string | URL | Request, init?: RequestInit) => {
        sent.push({
          url: input instanceof Request ? input.url : String(input),
          method: init?.method ?? 'GET',
          headers: { ...(init?.headers as Record<string, string>) },
          body: String((init?.body ?? '') as string),
        });
        return fetch(input, init);
      },
    });
    // In front of the companion, in either door's server: what arrived, and a receiver that is down.
    const before: Before = (req, res) => {
      if (!req.url?.startsWith('/svc/webhooks')) return false;
      const header = (name: string) => String(req.headers[name] ?? '');
      const entry = {
        eventId: header('x-svc-event-id'),
        signature: header('x-svc-signature-v3'),
        timestamp: header('x-svc-request-timestamp'),
        url: `http://${req.headers.host}${req.url}`,
        status: undefined as number | undefined,
      };
      arrived.push(entry);
      res.on('finish', () => (entry.status = res.statusCode));
      if (!down) return false;
      res
        .writeHead(503, { 'content-type': 'application/json' })
        .end(JSON.stringify({ status: 'error', message: 'down for the test' }));
      return true;
    };
    const { clientId, clientSecret, refreshToken } = t.portals[0].oauth;
    // The secret comes from the companion's own OAuth credentials.
    hooks = await mount(
      {
        baseUrl: t.baseUrl,
        formsUrl: t.formsUrl,
        auth: { oauth: { clientId, clientSecret, refreshToken } },
        tokenFile: join(tempDir(), 'tokens.json'),
        now: Date.now,
      },
      { door, before },
    );
    hooks.companion.webhooks.on('workflow', async (event) => void handled.push(event));
  });
  afterAll(async () => {
    await hooks?.close();
    await t?.close();
  });

  const secret = () => t.portals[0].oauth.clientSecret;

  /** A form, and a workflow that enrols whoever submits it and calls the companion. */
  async function formWorkflow(name: string) {
    const form = await t.call('POST', '/contacts/v1/forms', {
      body: { name, fields: [{ name: 'email' }, { name: 'firstname' }] },
    });
    expect(form.status).toBe(200);
    const guid = form.json.guid as string;
    const workflow = await t.call('POST', '/automation/v2/workflows', {
      body: {
        name: `${name} workflow`,
        segmentCriteria: [[{ operator: 'HAS_FILLED_OUT_FORM', form: guid }]],
        actions: [
          { type: 'WEBHOOK', url: `${hooks.url}/webhooks` },
          { type: 'SET_CONTACT_PROPERTY', propertyName: 'lastname', newValue: 'Notified' },
        ],
      },
    });
    expect(workflow.status, workflow.text).toBe(200);
    expect(workflow.json.segmentCriteria).toEqual([
      [expect.objectContaining({ operator: 'HAS_FILLED_OUT_FORM', form: guid })],
    ]);
    return { guid, workflowId: workflow.json.id as number };
  }

  async function submit(guid: string, fields: Record<string, string>) {
    const res = await fetch(`${t.formsUrl}/uploads/form/v2/62515/${guid}`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams(fields).toString(),
    });
    expect(res.status).toBe(204);
    const contact = await t.call('GET', `/contacts/v1/contact/email/${fields.email}/profile`);
    return contact.json.vid as number;
  }

  const past = async (workflowId: number, vid: number) =>
    (await t.call('GET', `/automation/v2/workflows/${workflowId}/logevents/contacts/${vid}/past`)).json as {
      eventType: string;
      detail?: string;
      stepId: number | null;
    }[];

  describe('a workflow webhook from a form submission to the companion', () => {
    it('delivers the contact to the handler once, signed as documented', async () => {
      const { guid, workflowId } = await formWorkflow('Contact us');
      const vid = await submit(guid, { email: 'ada@example.com', firstname: 'Ada' });
      await until('the handler', () => handled.some((e) => e.vid == vid));
      await until('the workflow to finish', async () => (await past(workflowId, vid))[0].eventType == 'COMPLETED');
      await pause(500); // time for a second delivery, were there one
      const mine = handled.filter((e) => e.vid == vid);
      expect(mine).toHaveLength(1);
      expect(mine[0]).toMatchObject({
        type: 'workflow',
        attempt: 1,
        workflowId,
        vid,
        portalId: 62515,
        email: 'ada@example.com',
        properties: expect.objectContaining({ firstname: 'Ada', email: 'ada@example.com' }),
      });

      // What the platform sent, checked with node:crypto over the documented string.
      const call = sent.find((s) => s.headers['x-svc-event-id'] == mine[0].id)!;
      expect(call).toBeDefined();
      expect(call.method).toBe('POST');
      expect(call.url).toBe(`${hooks.url}/webhooks`);
      expect(Number(call.headers['x-svc-request-timestamp'])).toBeGreaterThan(Date.now() - 60_000);
      expect(call.headers['x-svc-signature-v3']).toBe(
        independentSignature(secret(), 'POST', call.url, call.body, call.headers['x-svc-request-timestamp']),
      );
      // The README's lines for a site without the companion accept it, and not a changed one.
      const readme = readFileSync(new URL('../README.md', import.meta.url), 'utf8');
      const snippet = /\*\*Without the companion\*\*[\s\S]*?```js\n([\s\S]*?)```/
        .exec(readme)![1]
        .replace(/^import .*\n/m, '');
      const genuine = (rawBody: string) =>
        // eslint-disable-next-line @typescript-eslint/no-implied-eval -- runs the README's snippet as written
        new Function(
          'createHmac',
          'timingSafeEqual',
          'req',
          'url',
          'rawBody',
          'CLIENT_SECRET',
          `${snippet}; return genuine;`,
        )(createHmac, timingSafeEqual, { method: call.method, headers: call.headers }, call.url, rawBody, secret());
      expect(genuine(call.body)).toBe(true);
      expect(genuine(call.body.replace('Ada', 'Eve'))).toBe(false);
      // And as it arrived: the URL the receiver sees is the one signed.
      const got = arrived.find((a) => a.eventId == mine[0].id)!;
      expect(got.url).toBe(call.url);
      expect(got.signature).toBe(call.headers['x-svc-signature-v3']);
      expect(JSON.parse(call.body)).toMatchObject({ workflowId, vid, portalId: 62515, email: 'ada@example.com' });

      const log = await past(workflowId, vid);
      expect(log.map((e) => e.eventType)).toEqual(['COMPLETED', 'SET_CONTACT_PROPERTY', 'WEBHOOK', 'ENROLLED']);
      expect(log[2].detail).toBe(`POST ${hooks.url}/webhooks answered 200 (attempt 1, event ${mine[0].id})`);
      expect(log[3].detail).toBe('enrollment criteria met');
      // The inspector's timeline reads the same log.
      const timeline = await t.platform.services.inspector.contact(t.platform.services.engine, 62515, vid);
      expect(JSON.stringify(timeline)).toContain(`answered 200 (attempt 1, event ${mine[0].id})`);
      expect(hooks.logs.text()).not.toContain(secret());
    });

    it('keeps trying while the receiver answers 503, and delivers once when it is back', async () => {
      const { guid, workflowId } = await formWorkflow('Newsletter');
      down = true;
      const vid = await submit(guid, { email: 'grace@example.com', firstname: 'Grace' });
      const refused = () => arrived.filter((a) => a.status == 503);
      await until('three refused attempts', () => refused().length >= 3);
      expect(handled.filter((e) => e.vid == vid)).toEqual([]);
      expect(await t.platform.services.workflows.pendingWebhooks()).toBe(1);
      down = false;
      await until('the handler', () => handled.some((e) => e.vid == vid));
      await until('the workflow to finish', async () => (await past(workflowId, vid))[0].eventType == 'COMPLETED');
      await pause(500);
      const mine = handled.filter((e) => e.vid == vid);
      expect(mine).toHaveLength(1);
      expect(mine[0].attempt).toBeGreaterThanOrEqual(4);
      // One event id on every attempt.
      const attempts = sent.filter((s) => JSON.parse(s.body || '{}').vid == vid);
      expect(new Set(attempts.map((s) => s.headers['x-svc-event-id']))).toEqual(new Set([mine[0].id]));
      expect(attempts.map((s) => s.headers['x-svc-attempt'])).toEqual(attempts.map((_, i) => String(i + 1)));
      // Each attempt signed anew (its own timestamp), each signature right.
      for (const s of attempts)
        expect(s.headers['x-svc-signature-v3']).toBe(
          independentSignature(secret(), 'POST', s.url, s.body, s.headers['x-svc-request-timestamp']),
        );

      const log = await past(workflowId, vid);
      const retries = log.filter((e) => e.eventType == 'WEBHOOK_RETRY');
      expect(retries.length).toBe(attempts.length - 1);
      for (const r of retries)
        expect(r.detail).toMatch(/answered 503 \(attempt \d+, event [\w-]+\); next attempt in \d+\.\d s$/);
      expect(log.filter((e) => e.eventType == 'WEBHOOK')).toEqual([
        expect.objectContaining({
          stepId: 0,
          detail: `POST ${hooks.url}/webhooks answered 200 (attempt ${attempts.length}, event ${mine[0].id})`,
        }),
      ]);
      expect(await t.platform.services.workflows.pendingWebhooks()).toBe(0);
    });
  });

  /** A call as the platform makes it, signed here; `tamper` changes it after signing. */
  function signed(url: string, body: object, o: { secret?: string; timestamp?: number; eventId?: string } = {}) {
    const text = JSON.stringify(body);
    const timestamp = String(o.timestamp ?? Date.now());
    return {
      text,
      headers: {
        'content-type': 'application/json',
        'x-svc-request-timestamp': timestamp,
        'x-svc-signature-v3': independentSignature(o.secret ?? secret(), 'POST', url, text, timestamp),
        'x-svc-event-id': o.eventId ?? randomUUID(),
      },
    };
  }
  const payload = (vid: number) => ({
    workflowId: 1,
    vid,
    portalId: 62515,
    email: 'x@example.com',
    properties: { email: 'x@example.com' },
    timestamp: Date.now(),
  });
  const post = (url: string, text: string, headers: Record<string, string>) =>
    call(url, { method: 'POST', body: text, headers });

  describe('POST /webhooks refuses what the platform did not send', () => {
    it('answers 401 to a forged signature, a changed body and a replayed old call, and calls no handler', async () => {
      const url = `${hooks.url}/webhooks`;
      const before = handled.length;
      const forged = signed(url, payload(9001), { secret: 'svc-secret-not-the-real-one' });
      const r1 = await post(url, forged.text, forged.headers);
      expect(r1.status).toBe(401);
      expect(r1.json).toEqual({ status: 'error', message: 'the signature does not match this request' });

      const genuine = signed(url, payload(9002));
      const changed = await post(url, genuine.text.replace('x@example.com', 'mallory@example.com'), genuine.headers);
      expect(changed.status).toBe(401);
      // Another URL than the one signed (a call meant for another site) does not pass either.
      expect((await post(`${url}?to=elsewhere`, genuine.text, genuine.headers)).status).toBe(401);

      const old = signed(url, payload(9003), { timestamp: Date.now() - 5 * 60_000 - 1_000 });
      const replayed = await post(url, old.text, old.headers);
      expect(replayed.status).toBe(401);
      expect(replayed.json.message).toBe('the request is older than 5 minutes (a replay?)');

      const noSignature = await post(url, genuine.text, { ...genuine.headers, 'x-svc-signature-v3': '' });
      expect(noSignature.status).toBe(401);
      const noTimestamp = await post(url, genuine.text, { ...genuine.headers, 'x-svc-request-timestamp': 'yesterday' });
      expect(noTimestamp.status).toBe(401);
      expect(handled.length).toBe(before);

      // The genuine one passes, once; sent again it is a duplicate, answered 200 without the handler.
      expect((await post(url, genuine.text, genuine.headers)).status).toBe(200);
      const again = await post(url, genuine.text, genuine.headers);
      expect(again.status).toBe(200);
      expect(again.json).toEqual({ status: 'ok', duplicate: true });
      expect(handled.length).toBe(before + 1);
      expect(hooks.logs.text()).not.toContain(secret());
    });

    it('answers 400 to a signed call whose body is not an event, and no 5xx to bad input', async () => {
      const url = `${hooks.url}/webhooks`;
      const notJson = signed(url, {});
      const text = '{"workflowId": 1,';
      const headers = {
        ...notJson.headers,
        'x-svc-signature-v3': independentSignature(
          secret(),
          'POST',
          url,
          text,
          notJson.headers['x-svc-request-timestamp'],
        ),
      };
      expect((await post(url, text, headers)).json).toEqual({
        status: 'error',
        message: 'the request body is not valid JSON',
      });
      const noVid = signed(url, { ...payload(1), vid: 'one' });
      expect(await post(url, noVid.text, noVid.headers)).toMatchObject({
        status: 400,
        json: { message: 'body.vid: must be a number' },
      });
      const badId = signed(url, payload(9004), { eventId: 'a b' });
      expect((await post(url, badId.text, badId.headers)).status).toBe(400);
    });

    it('answers 500 when a handler throws, so that the platform tries again; the retry is handled', async () => {
      const site = await mount(
        {
          baseUrl: t.baseUrl,
          auth: { accessToken: t.portals[0].privateAppToken },
          webhooks: { secret: 'a-secret-given-as-an-option' },
          now: Date.now,
        },
        { door },
      );
      try {
        const url = `${site.url}/webhooks`;
        const seen: string[] = [];
        let fail = true;
        site.companion.webhooks.on('workflow', (e) => {
          seen.push(e.id);
          if (fail) throw new Error('the database of the site is down, ada@example.com');
        });
        const event = signed(url, payload(9005), { secret: 'a-secret-given-as-an-option' });
        const first = await post(url, event.text, event.headers);
        expect(first.status).toBe(500);
        expect(first.json.message).toBe('the webhook handler failed; the platform will try again');
        fail = false;
        expect((await post(url, event.text, event.headers)).status).toBe(200);
        expect((await post(url, event.text, event.headers)).json).toEqual({ status: 'ok', duplicate: true });
        expect(seen).toEqual([event.headers['x-svc-event-id'], event.headers['x-svc-event-id']]);
        expect(site.logs.text()).not.toContain('ada@example.com');
        expect(site.logs.text()).not.toContain('a-secret-given-as-an-option');
      } finally {
        await site.close();
      }
    });

    it('answers 404 while no handler is registered, and when there is no secret to check with', async () => {
      const site = await mount(
        {
          baseUrl: t.baseUrl,
          auth: { accessToken: t.portals[0].privateAppToken },
          webhooks: { secret: 'another-secret-0123456789' },
        },
        { door },
      );
      const bare = await mount({ baseUrl: t.baseUrl, auth: { accessToken: t.portals[0].privateAppToken } }, { door });
      try {
        const event = signed(`${site.url}/webhooks`, payload(9006), { secret: 'another-secret-0123456789' });
        const res = await post(`${site.url}/webhooks`, event.text, event.headers);
        expect(res.status).toBe(404);
        expect(res.json.message).toMatch(/companion\.webhooks\.on\('workflow', handler\)/);
        const off = site.companion.webhooks.on('workflow', () => undefined);
        expect((await post(`${site.url}/webhooks`, event.text, event.headers)).status).toBe(200);
        off();
        expect((await post(`${site.url}/webhooks`, event.text, event.headers)).status).toBe(404);
        bare.companion.webhooks.on('workflow', () => undefined);
        expect((await post(`${bare.url}/webhooks`, event.text, event.headers)).json.message).toMatch(
          /no secret to check them with/,
        );
        expect(() => site.companion.webhooks.on('contact' as 'workflow', () => undefined)).toThrow(
          /no "contact" webhooks/,
        );
      } finally {
        await site.close();
        await bare.close();
      }
    });
  });

  describe.skipIf(!haveRedis)('shared mode', () => {
    const prefix = redisPrefix('webhooks');
    it('recognises a duplicate event id on another instance, and one being handled by another instance', async () => {
      const options = {
        baseUrl: t.baseUrl,
        auth: { accessToken: t.portals[0].privateAppToken },
        webhooks: { secret: 'the-shared-secret-0123456789' },
        redis: REDIS_URL,
        redisPrefix: prefix,
        subscriptions: { linkSecret: 'a-link-secret-shared-by-every-instance-0123456789' },
        now: Date.now,
      };
      const a = await mount(options, { door });
      const b = await mount(options, { door });
      try {
        const got: string[] = [];
        a.companion.webhooks.on('workflow', (e) => void got.push(`a:${e.id}`));
        b.companion.webhooks.on('workflow', (e) => void got.push(`b:${e.id}`));
        // Both mounted at /svc: the URL signed names the instance called.
        const toA = signed(`${a.url}/webhooks`, payload(9007), { secret: 'the-shared-secret-0123456789' });
        const id = toA.headers['x-svc-event-id'];
        expect((await post(`${a.url}/webhooks`, toA.text, toA.headers)).status).toBe(200);
        const toB = signed(`${b.url}/webhooks`, JSON.parse(toA.text), {
          secret: 'the-shared-secret-0123456789',
          eventId: id,
        });
        const dup = await post(`${b.url}/webhooks`, toB.text, toB.headers);
        expect(dup.json).toEqual({ status: 'ok', duplicate: true });
        expect(got).toEqual([`a:${id}`]);

        // One event reaching both at once (the platform retried a slow call): one runs it, the
        // other answers 503 (being handled) and the platform's later attempt finds it handled.
        let release!: () => void;
        const slow = new Promise<void>((r) => (release = r));
        const busy: string[] = [];
        const offA = a.companion.webhooks.on('workflow', async (e) => (busy.push(`a:${e.id}`), await slow));
        const offB = b.companion.webhooks.on('workflow', async (e) => (busy.push(`b:${e.id}`), await slow));
        const both = signed(`${a.url}/webhooks`, payload(9008), { secret: 'the-shared-secret-0123456789' });
        const same = signed(`${b.url}/webhooks`, JSON.parse(both.text), {
          secret: 'the-shared-secret-0123456789',
          eventId: both.headers['x-svc-event-id'],
        });
        const first = post(`${a.url}/webhooks`, both.text, both.headers);
        await until('the first instance to hold the event', () => busy.length == 1);
        const second = await post(`${b.url}/webhooks`, same.text, same.headers);
        expect(second.status).toBe(503);
        expect(second.headers.get('retry-after')).toBe('5');
        release();
        expect((await first).status).toBe(200);
        expect((await post(`${b.url}/webhooks`, same.text, same.headers)).json).toEqual({
          status: 'ok',
          duplicate: true,
        });
        expect(busy).toEqual([`a:${both.headers['x-svc-event-id']}`]);
        offA();
        offB();
      } finally {
        await a.close();
        await b.close();
      }
    });
  });
});
