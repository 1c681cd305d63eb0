/** Submissions kept apart as spam (`spam_submissions`): the rule that judges them, and their rows,
 * kept with everything needed to replay one that a person releases as not spam (services/
 * form-submissions.ts). Every function takes where it runs (`db`) first. */
import type { schemas } from '@svc/api';
import type { LegalConsent } from '@svc/protocol';
import type { z } from 'zod';
import { type Queryable, sql } from '../db/engine';
import { uuidV7 } from '../util/uuid-v7';

/** The context a submission came with (forms.ts's SubmissionContext; named from the catalog here,
 * as forms.ts imports this file). */
type SubmissionContext = z.output<typeof schemas.submissionContext>;

/** A submission that the embed saw no person touch, sent sooner than this after its form was shown
 * (the embed's `fillTimeMs`), is spam, unless the form sets its own `minFillTimeMs`. */
export const MIN_FILL_TIME_MS = 1_500;

/** Why a submission was kept apart as spam. TOO_FAST: the fill-time rule of schema versions
 * before 19, which judged people too; kept on its old rows, never given now. */
export type SpamReason = 'HONEYPOT' | 'NO_INTERACTION' | 'TOO_FAST';

/** A spam submission as the inspector lists it. */
export interface SpamRecord {
  conversionId: string;
  formGuid: string;
  timestamp: number;
  reason: SpamReason;
  pageUrl: string | null;
  pageName: string | null;
  values: Record<string, string>;
  /** When it was released as not spam and the contact it made or updated (null: none). */
  released: { at: number; vid: number | null } | null;
}

/** Why a submission is spam, if it is, on evidence a person does not produce (packages/forms/
 * README.md, "Spam without a captcha"): the honeypot, which people never see, has a value; or the
 * embed saw nothing of a person (no trusted key, pointer or input event, nothing pre-filled or
 * autofilled) and the form was sent sooner than `minFillTimeMs` after it was shown. How fast values
 * arrived is no evidence: autofill, paste, password managers and test scripts are all faster than
 * typing. Without the embed's evidence (API clients, captured forms, older embeds) only the
 * honeypot judges. */
export function spamReason(
  minFillTimeMs: number | undefined,
  honeypot: string | undefined,
  context: SubmissionContext,
): SpamReason | undefined {
  if (honeypot) return 'HONEYPOT';
  const { interactions, prefilled, autofilled, fillTimeMs } = context;
  if (interactions === undefined || fillTimeMs === undefined || interactions > 0 || prefilled || autofilled)
    return undefined;
  if (fillTimeMs < (minFillTimeMs ?? MIN_FILL_TIME_MS)) return 'NO_INTERACTION';
}

/** A field's value as a submission writes it: several values (checkboxes) joined with `;`, the
 * way the platform stores multiple choices. One rule for the contact write and for spam kept. */
export const fieldValue = (v: string | string[]) => (Array.isArray(v) ? v.join(';') : v);

interface SpamRow {
  conversion_id: string;
  form_guid: string;
  timestamp: number;
  reason: SpamReason;
  page_url: string | null;
  values_json: string;
  context_json: string | null;
  consent_json: string | null;
  released_at: number | null;
  released_vid: number | null;
}

const COLUMNS =
  'conversion_id, form_guid, timestamp, reason, page_url, values_json, context_json, consent_json, released_at, released_vid';
const q = {
  insert: sql<[string, number, string, number, string, string | null, string, string, string | null]>(
    `INSERT INTO spam_submissions (conversion_id, portal_id, form_guid, timestamp, reason, page_url, values_json, context_json, consent_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  ),
  // Newest first, a page at a time: conversion ids are UUIDv7, in the order they were made.
  page: sql<[number, string, string, number], SpamRow>(
    `SELECT ${COLUMNS} FROM spam_submissions WHERE portal_id = ? AND form_guid = ? AND conversion_id < ? ORDER BY conversion_id DESC LIMIT ?`,
  ),
  one: sql<[number, string, string], SpamRow>(
    `SELECT ${COLUMNS} FROM spam_submissions WHERE portal_id = ? AND form_guid = ? AND conversion_id = ?`,
  ),
  /** Takes a spam submission for release: one taker however many ask at once (the row's lock on
   * PostgreSQL, the one writer on SQLite); no row when it is released already or not there. */
  claim: sql<[number, number, string, string], SpamRow>(
    `UPDATE spam_submissions SET released_at = ? WHERE portal_id = ? AND form_guid = ? AND conversion_id = ? AND released_at IS NULL RETURNING ${COLUMNS}`,
  ),
  releasedTo: sql<[number | null, string]>('UPDATE spam_submissions SET released_vid = ? WHERE conversion_id = ?'),
};

function record(r: SpamRow): SpamRecord {
  const context = (r.context_json ? JSON.parse(r.context_json) : {}) as SubmissionContext;
  return {
    conversionId: r.conversion_id,
    formGuid: r.form_guid,
    timestamp: Number(r.timestamp),
    reason: r.reason,
    pageUrl: r.page_url,
    pageName: context.pageName ?? null,
    values: JSON.parse(r.values_json) as SpamRecord['values'],
    released:
      r.released_at === null
        ? null
        : { at: Number(r.released_at), vid: r.released_vid === null ? null : Number(r.released_vid) },
  };
}

export const spamSubmissions = {
  /** Keeps a submission judged spam at `t`, as it was sent; answers its conversion id. */
  async keep(
    db: Queryable,
    portalId: number,
    formGuid: string,
    t: number,
    reason: SpamReason,
    values: Record<string, string | string[]>,
    context: SubmissionContext,
    consent?: LegalConsent,
  ) {
    const conversionId = uuidV7(t);
    const kept = JSON.stringify(Object.fromEntries(Object.entries(values).map(([k, v]) => [k, fieldValue(v)])));
    await db.run(
      q.insert,
      conversionId,
      portalId,
      formGuid,
      t,
      reason,
      context.pageUrl ?? null,
      kept,
      JSON.stringify(context),
      consent ? JSON.stringify(consent) : null,
    );
    return conversionId;
  },

  /** A form's spam, newest first, `limit` (1–100, default 50) of them older than the conversion id `before`. */
  async page(
    db: Queryable,
    portalId: number,
    formGuid: string,
    page: { before?: string; limit?: number } = {},
  ): Promise<SpamRecord[]> {
    const rows = await db.all(
      q.page,
      portalId,
      formGuid,
      page.before || 'z' /* after every UUID */,
      Math.min(Math.max(page.limit ?? 50, 1), 100),
    );
    return rows.map(record);
  },

  /** One spam submission, released or not; undefined when the form has none of that id. */
  async one(db: Queryable, portalId: number, formGuid: string, conversionId: string) {
    const row = await db.get(q.one, portalId, formGuid, conversionId);
    return row && record(row);
  },

  /** Takes a spam submission for release at `at`, with what it was sent with; undefined when it
   * was released already or is not there (the caller tells which with `one`). */
  async claim(db: Queryable, portalId: number, formGuid: string, conversionId: string, at: number) {
    const row = await db.get(q.claim, at, portalId, formGuid, conversionId);
    if (!row) return undefined;
    // Rows from before schema 19 kept only the page.
    const context: SubmissionContext = row.context_json
      ? (JSON.parse(row.context_json) as SubmissionContext)
      : { ...(row.page_url !== null && { pageUrl: row.page_url }) };
    const consent: LegalConsent | undefined = row.consent_json
      ? (JSON.parse(row.consent_json) as LegalConsent)
      : undefined;
    return {
      record: record(row),
      values: JSON.parse(row.values_json) as Record<string, string>,
      context,
      consent,
      releasedAt: at,
    };
  },

  /** Records the contact a released submission made or updated. */
  releasedTo: (db: Queryable, conversionId: string, vid: number | null) => db.run(q.releasedTo, vid, conversionId),
};
