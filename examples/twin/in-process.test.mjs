// The same kind of test without exec: the twin started inside the test process (node:test here;
// vitest and jest alike), from @svc/platform/testing.
import assert from 'node:assert/strict';
import { after, before, it } from 'node:test';
import { startTwin } from '@svc/platform/testing';
import { greetingName, signUp } from './site.mjs';

let twin;
let saved;
before(async () => {
  twin = await startTwin();
  // site.mjs reads its settings from the environment; point it at this twin for these tests.
  saved = { ...process.env };
  Object.assign(process.env, twin.env);
});
after(async () => {
  process.env = saved;
  await twin.close();
});

it('signs a visitor up on a portal made for this test, and retries a 503', async () => {
  const portal = await twin.admin.portals.create({ name: 'In-process test' });
  process.env.SVC_TOKEN = portal.privateAppToken;
  await twin.admin.faults.add({ route: 'contacts.getByEmail', portalId: portal.portalId, status: 503, times: 1 });
  await signUp('ada@example.com', 'Ada');
  assert.equal(await greetingName('ada@example.com'), 'Ada');
  assert.equal(await twin.admin.journal.count({ route: 'contacts.getByEmail', status: 503 }), 1);
  await twin.admin.portals.delete(portal.portalId);
});
