/** The forms' SQL: form rows, submissions and their consent. */
import { type Queryable, sql } from '../../db/engine';
import { pair } from '../../db/statements';
import type { FormRow } from './definition';

const COLUMNS = 'guid, portal_id, definition, created_at, updated_at';
export const q = {
  get: sql<[number, string], FormRow>(`SELECT ${COLUMNS} FROM forms WHERE portal_id = ? AND guid = ?`),
  /** The row, locked until the transaction ends (PostgreSQL; SQLite has one writer): an update
   * reads the form it changes this way, so that two at once apply one after the other. */
  lock: sql<[number, string], FormRow>(
    `UPDATE forms SET updated_at = updated_at WHERE portal_id = ? AND guid = ? RETURNING ${COLUMNS}`,
  ),
  // seq: the order they were made in, for forms made in the same millisecond.
  all: sql<[number], FormRow>(`SELECT ${COLUMNS} FROM forms WHERE portal_id = ? ORDER BY created_at, seq`),
  insert: sql<[string, number, string, number, number]>(
    'INSERT INTO forms (guid, portal_id, definition, created_at, updated_at) VALUES (?, ?, ?, ?, ?)',
  ),
  update: sql<[string, number, number, string]>(
    'UPDATE forms SET definition = ?, updated_at = ? WHERE portal_id = ? AND guid = ?',
  ),
  remove: sql<[number, string]>('DELETE FROM forms WHERE portal_id = ? AND guid = ?'),
  insertSubmission: sql<[string, number, number | null, string, number, string | null, string | null, string]>(
    `INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, page_url, page_title, values_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  conversions: sql<[number, number], { form_guid: string; n: number }>(
    'SELECT form_guid, count(*) AS n FROM form_submissions WHERE portal_id = ? AND vid = ? GROUP BY form_guid',
  ),
  insertConsent: sql<[string, number, string]>(
    'INSERT INTO form_consents (conversion_id, portal_id, consent) VALUES (?, ?, ?)',
  ),
  /** The submission and its consent in one statement (PostgreSQL; SQLite has no INSERT in WITH). */
  insertWithConsent: sql<
    [string, number, number | null, string, number, string | null, string | null, string, string, number, string]
  >(
    `WITH s AS (INSERT INTO form_submissions (conversion_id, portal_id, vid, form_guid, timestamp, page_url, page_title, values_json)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?))
     INSERT INTO form_consents (conversion_id, portal_id, consent) VALUES (?, ?, ?)`,
  ),
  subscriptionTypes: sql<[number], { id: number }>('SELECT id FROM subscription_types WHERE portal_id = ?'),
};

/** A submission's row: conversion id, portal, contact, form, time, page URL and title, values. */
export type SubmissionRow = readonly [
  string,
  number,
  number | null,
  string,
  number,
  string | null,
  string | null,
  string,
];

/** Stores a submission with the consent it gave (JSON), if any, without waiting for either
 * (`send`: rows keyed by a new conversion id, which nothing else has): one statement for both on
 * PostgreSQL, where each is a round trip. */
export const storeSubmission = pair<(db: Queryable, submission: SubmissionRow, consent?: string) => Promise<void>>({
  async sqlite(db, submission, consent) {
    await db.send(q.insertSubmission, ...submission);
    if (consent) await db.send(q.insertConsent, submission[0], submission[1], consent);
  },
  postgres: (db, submission, consent) =>
    consent
      ? db.send(q.insertWithConsent, ...submission, submission[0], submission[1], consent)
      : db.send(q.insertSubmission, ...submission),
});
