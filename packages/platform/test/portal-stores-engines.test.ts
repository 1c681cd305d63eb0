/** The portals, credentials, OAuth and settings stores and the inspector's reads, the same tests
 * on SQLite and on PostgreSQL: their SQL is written once and runs on both engines. A new portal's
 * site and social channels are seeded through the real content engine and social store. */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, sql } from '../src/db/engine';
import { sqliteEngine } from '../src/db/engine-sqlite';
import { openDatabase } from '../src/db/open';
import { openPostgres } from '../src/db/open-postgres';
import { credentialStore } from '../src/store/credentials';
import {
  DEFAULT_CONTACT_GROUPS,
  DEFAULT_CONTACT_PROPERTIES,
  DEFAULT_DEAL_GROUPS,
  DEFAULT_DEAL_PROPERTIES,
} from '../src/store/default-properties';
import { inspectorQueries } from '../src/store/inspector';
import { oauthStore } from '../src/store/oauth';
import { contentEngine } from '../src/store/content/engine';
import { createPortal, issuePortalCredentials, portalStore, type PortalSeeding } from '../src/store/portals';
import { socialStore } from '../src/store/social';
import { settingStore } from '../src/store/settings';
import { havePostgres, PG_URL, pgSchema } from './postgres';

const schema = await pgSchema('portal_stores');
const engines: [string, boolean, () => Promise<Engine>][] = [
  ['sqlite', true, async () => sqliteEngine(openDatabase(':memory:'))],
  ['postgres', havePostgres, () => openPostgres(PG_URL, { schema })],
];

const count = (table: string) => sql<[number], { n: number }>(`SELECT count(*) AS n FROM ${table} WHERE portal_id = ?`);

for (const [name, available, open] of engines) {
  describe.skipIf(!available)(`portal stores on ${name}`, () => {
    let db: Engine;
    let seeding: PortalSeeding;
    let clock = 1_000_000;
    const now = () => clock;

    beforeAll(async () => {
      db = await open();
      seeding = { content: contentEngine(db, now), social: socialStore(db, now) };
    });
    afterAll(() => db?.close());

    it('creates a portal with its default groups and properties, in one transaction', async () => {
      await createPortal(db, seeding, { id: 7, name: 'Seven', tier: 'starter', now: clock });
      expect(await db.value(count('property_groups'), 7)).toBe(
        DEFAULT_CONTACT_GROUPS.length + DEFAULT_DEAL_GROUPS.length,
      );
      expect(await db.value(count('properties'), 7)).toBe(
        DEFAULT_CONTACT_PROPERTIES.length + DEFAULT_DEAL_PROPERTIES.length,
      );
      // Its site (a blog among it) and its social channels, in the same transaction.
      expect(
        await db.value(
          sql<[number], { n: number }>(
            "SELECT count(*) AS n FROM content_objects WHERE portal_id = ? AND collection = 'blogs'",
          ),
          7,
        ),
      ).toBe(1);
      expect(await db.value(count('social_channels'), 7)).toBeGreaterThan(0);
      const portals = portalStore();
      expect(await portals.ids(db)).toEqual([7]);
      expect(await portals.tier(db, 7)).toBe('starter');
      expect(await portals.tier(db, 8)).toBeUndefined();
      // A portal id taken: nothing of the second attempt stays.
      await expect(
        createPortal(db, seeding, { id: 7, name: 'Again', tier: 'enterprise', now: clock }),
      ).rejects.toThrow();
      expect(await db.value(count('property_groups'), 7)).toBe(
        DEFAULT_CONTACT_GROUPS.length + DEFAULT_DEAL_GROUPS.length,
      );
    });

    it('issues credentials that are found by their value, and refreshes OAuth tokens with rotation', async () => {
      const creds = await issuePortalCredentials(db, 7, clock);
      const credentials = credentialStore();
      expect(await credentials.find(db, creds.apiKey)).toMatchObject({
        kind: 'hapikey',
        portal_id: 7,
        revoked: 0,
        expires_at: null,
      });
      expect(await credentials.find(db, creds.privateAppToken)).toMatchObject({ kind: 'privateApp', portal_id: 7 });
      expect(await credentials.find(db, 'not-a-token')).toBeUndefined();

      const oauth = oauthStore(now, { tokenLifetimeSeconds: 60, rotateRefreshTokens: true });
      const { clientId, clientSecret, refreshToken } = creds.oauth;
      const first = await oauth.refresh(db, clientId, clientSecret, refreshToken);
      expect(first).toMatchObject({ expires_in: 60, token_type: 'bearer', portal_id: 7 });
      expect(await credentials.find(db, first.access_token)).toMatchObject({
        kind: 'access',
        client_id: clientId,
        expires_at: clock + 60_000,
      });
      expect(first.refresh_token).not.toBe(refreshToken);
      expect(await credentials.find(db, refreshToken)).toMatchObject({ revoked: 1 });
      await expect(oauth.refresh(db, clientId, clientSecret, refreshToken)).rejects.toThrow(
        'The client credentials or the refresh token are not valid.',
      );
      await expect(oauth.refresh(db, clientId, 'wrong', first.refresh_token)).rejects.toThrow(
        'The client credentials or the refresh token are not valid.',
      );
      // Inside a caller's transaction: a savepoint of it.
      const second = await db.tx((t) => oauth.refresh(t, clientId, clientSecret, first.refresh_token));
      expect(await credentials.find(db, second.access_token)).toMatchObject({ kind: 'access', portal_id: 7 });
    });

    it('keeps settings: put, replace, read one or all, remove; a cached value follows every write', async () => {
      const settings = settingStore(db, now);
      expect(await settings.value(db, 7, 'a')).toBeUndefined();
      await settings.put(db, 7, { name: 'b', value: '1' });
      await settings.put(db, 7, { name: 'a', value: '1' });
      expect(await settings.value(db, 7, 'a')).toBe('1');
      clock += 1000;
      await settings.put(db, 7, { name: 'a', value: '2' });
      expect(await settings.value(db, 7, 'a')).toBe('2');
      expect(await settings.get(db, 7)).toEqual([
        { name: 'a', value: '2' },
        { name: 'b', value: '1' },
      ]);
      expect(await settings.get(db, 7, 'a')).toEqual({ name: 'a', value: '2' });
      expect(await settings.get(db, 8)).toEqual([]);
      expect(await settings.value(db, 7, 'b')).toBe('1');
      await settings.remove(db, 7, 'b');
      expect(await settings.value(db, 7, 'b')).toBeUndefined();
      await expect(settings.remove(db, 7, 'b')).rejects.toThrow('no setting named b');
      await expect(settings.get(db, 7, 'b')).rejects.toThrow('no setting named b');
    });

    it("reads what the inspector shows: portals, contacts found without case, a contact's identities and lists, forms, the feed", async () => {
      const inspector = inspectorQueries(db);
      const props = JSON.stringify({
        email: 'Ada@Example.test',
        firstname: 'Ada',
        lastname: 'Lovelace',
        company: 'Engines 100%',
      });
      await db.run(
        sql<[string]>(
          "INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at) VALUES (41, 7, 'Ada@Example.test', ?, 100, 300)",
        ),
        props,
      );
      await db.run(
        sql(
          "INSERT INTO contacts (vid, portal_id, email, properties, created_at, updated_at) VALUES (42, 7, 'bob@example.test', '{}', 100, 200)",
        ),
      );
      await db.run(sql("INSERT INTO utks (portal_id, utk, vid, linked_at) VALUES (7, 'u-ada', 41, 150)"));
      await db.run(
        sql(
          "INSERT INTO lists (list_id, portal_id, internal_list_id, name, dynamic, created_at, updated_at, processed_at) VALUES (5, 7, 5, 'Readers', 0, 1, 1, 1)",
        ),
      );
      await db.run(sql('INSERT INTO list_members (list_id, vid, added_at) VALUES (5, 41, 250)'));
      await db.run(
        sql(
          `INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES ('f1', 7, '{"name":"Contact us"}', 1, 1)`,
        ),
      );

      expect(await inspector.portals(db)).toEqual([{ id: 7, name: 'Seven', tier: 'starter' }]);
      const all = await inspector.contacts(db, 7, '', 0);
      expect(all.contacts.map((c) => c.vid)).toEqual([41, 42]);
      expect(all.contacts[0]).toMatchObject({
        email: 'Ada@Example.test',
        name: 'Ada Lovelace',
        company: 'Engines 100%',
        utks: ['u-ada'],
      });
      expect((await inspector.contacts(db, 7, 'ada@example', 0)).contacts.map((c) => c.vid)).toEqual([41]);
      expect((await inspector.contacts(db, 7, 'LOVELACE', 0)).contacts.map((c) => c.vid)).toEqual([41]);
      expect((await inspector.contacts(db, 7, '100%', 0)).contacts.map((c) => c.vid)).toEqual([41]); // % is a character, not a wildcard
      expect((await inspector.contacts(db, 7, '1_0', 0)).contacts).toEqual([]);
      const ada = await inspector.contact(db, 7, 41);
      expect(ada?.identities.map((i) => i.value)).toEqual(['Ada@Example.test', 'u-ada']);
      expect(ada?.lists).toEqual([{ name: 'Readers', dynamic: false, addedAt: 250 }]);
      expect(ada?.timeline).toEqual([{ at: 250, kind: 'list', title: 'joined Readers' }]);
      expect(await inspector.contact(db, 7, 999)).toBeUndefined();
      expect(await inspector.lists(db, 7)).toEqual([{ id: 5, name: 'Readers', dynamic: false, size: 1 }]);
      expect(await inspector.forms(db, 7)).toEqual([{ guid: 'f1', name: 'Contact us', submissions: 0, spam: 0 }]);
      expect(await inspector.feed(db, 7, 0)).toEqual([]);
    });
  });
}
