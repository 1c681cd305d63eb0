// The site's test suite, run against the twin:
//   npx svc-platform exec -- node --test examples/twin/
// exec gives it SVC_BASE_URL, SVC_TOKEN, … and the admin API (SVC_ADMIN_URL, SVC_ADMIN_KEY).
import assert from 'node:assert/strict';
import { afterEach, describe, it } from 'node:test';
import { greetingName, signUp, welcome } from './site.mjs';

/** The admin API, as curl would call it. */
async function admin(method, path, body) {
  const res = await fetch(process.env.SVC_ADMIN_URL + path, {
    method,
    headers: { authorization: `Bearer ${process.env.SVC_ADMIN_KEY}`, 'content-type': 'application/json' },
    body: body && JSON.stringify(body),
  });
  assert.ok(res.ok, `${method} ${path}: ${res.status} ${await res.clone().text()}`);
  return res.status == 204 ? undefined : res.json();
}

afterEach(() => admin('DELETE', '/faults'));

/** The ids of the static lists a contact is in, as the API shows them. */
async function listsOf(email) {
  const res = await fetch(`${process.env.SVC_BASE_URL}/contacts/v1/contact/email/${email}/profile`, {
    headers: { authorization: `Bearer ${process.env.SVC_TOKEN}` },
  });
  return (await res.json())['list-memberships'].map((m) => m['static-list-id']);
}

describe('newsletter sign-up', () => {
  it('makes the contact, and greets it by name', async () => {
    await signUp('ada@example.com', 'Ada');
    assert.equal(await greetingName('ada@example.com'), 'Ada');
    assert.equal(await greetingName('nobody@example.com'), undefined);
  });

  it('gets through a rate limit: waits Retry-After, then succeeds', async () => {
    await admin('DELETE', '/journal');
    await admin('POST', '/faults', { route: 'contacts.createOrUpdate', status: 429, retryAfter: 1, times: 1 });
    await signUp('grace@example.com', 'Grace');
    // Two calls reached the platform: the one refused, and the retry.
    const { count } = await admin('GET', '/journal/count?route=contacts.createOrUpdate');
    assert.equal(count, 2);
    const { requests } = await admin('GET', '/journal?route=contacts.createOrUpdate');
    assert.deepEqual(
      requests.map((r) => r.status),
      [200, 429],
    );
  });

  it('gives up on an outage with a clear error', async () => {
    await admin('POST', '/faults', { route: 'contacts.getByEmail', status: 503 });
    await assert.rejects(greetingName('ada@example.com'), /lookup failed: 503/);
  });

  it('welcomes a new lead: on the newsletter an hour later, once the clock has moved on', async () => {
    await signUp('lin@example.com', 'Lin');
    await welcome('lin@example.com');
    const before = await listsOf('lin@example.com');
    // The workflow's one-hour delay runs out, and its next step runs, before the call answers.
    await admin('POST', '/clock', { advanceMs: 60 * 60 * 1000 });
    const after = await listsOf('lin@example.com');
    assert.equal(after.length, before.length + 1);
  });
});
