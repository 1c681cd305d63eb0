/** 13 → 14: form submissions' legal consents and the submissions judged spam are new. */
import type { Migration } from './migration';

export default {
  version: 14,
  sqlite: `
  -- The legal consent given with a submission (a form with legalConsentOptions), as JSON: what was
  -- agreed to and the texts the form showed. Shown with the submission on the contact.
  CREATE TABLE IF NOT EXISTS form_consents (
    conversion_id TEXT PRIMARY KEY,
    portal_id INTEGER NOT NULL,
    consent TEXT NOT NULL
  );

  -- Submissions judged spam (honeypot filled, or sent faster than the form's minFillTimeMs): kept
  -- to be looked at, but they made no contact. reason: HONEYPOT or TOO_FAST.
  CREATE TABLE IF NOT EXISTS spam_submissions (
    conversion_id TEXT PRIMARY KEY,
    portal_id INTEGER NOT NULL,
    form_guid TEXT NOT NULL,
    timestamp INTEGER NOT NULL,
    reason TEXT NOT NULL,
    page_url TEXT,
    values_json TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS spam_submissions_form ON spam_submissions(portal_id, form_guid, timestamp);
`,
  postgres: `
  -- The legal consent given with a submission (a form with legalConsentOptions), as JSON: what was
  -- agreed to and the texts the form showed. Shown with the submission on the contact.
  CREATE TABLE IF NOT EXISTS form_consents (
    conversion_id TEXT PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    consent TEXT NOT NULL
  );

  -- Submissions judged spam (honeypot filled, or sent faster than the form's minFillTimeMs): kept
  -- to be looked at, but they made no contact. reason: HONEYPOT or TOO_FAST.
  CREATE TABLE IF NOT EXISTS spam_submissions (
    conversion_id TEXT PRIMARY KEY,
    portal_id BIGINT NOT NULL,
    form_guid TEXT NOT NULL,
    timestamp BIGINT NOT NULL,
    reason TEXT NOT NULL,
    page_url TEXT,
    values_json TEXT NOT NULL
  );
  CREATE INDEX IF NOT EXISTS spam_submissions_form ON spam_submissions(portal_id, form_guid, timestamp);
`,
} satisfies Migration;
