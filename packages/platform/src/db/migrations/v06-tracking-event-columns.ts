/** 5 → 6: tracking events get named columns for what the platform reads (they were read out of the
 * tracker's one-letter wire fields in `data`, which the events API had to imitate), filled from
 * those fields. */
import type { Migration } from './migration';

export default {
  version: 6,
  sqlite: `
  ALTER TABLE tracking_events ADD COLUMN source TEXT NOT NULL DEFAULT 'tracker';
  ALTER TABLE tracking_events ADD COLUMN url TEXT;
  ALTER TABLE tracking_events ADD COLUMN title TEXT;
  ALTER TABLE tracking_events ADD COLUMN event_name TEXT;
  ALTER TABLE tracking_events ADD COLUMN value REAL;
  ALTER TABLE tracking_events ADD COLUMN external_id TEXT;
  UPDATE tracking_events SET
    source = CASE json_extract(data, '$.via') WHEN 'http-get' THEN 'events-get' WHEN 'http-post' THEN 'events-post' ELSE 'tracker' END,
    url = json_extract(data, '$.pu'),
    title = json_extract(data, '$.t'),
    event_name = CASE WHEN json_extract(data, '$.via') = 'http-get' THEN json_extract(data, '$._n') ELSE json_extract(data, '$.n') END,
    value = CASE WHEN json_extract(data, '$.via') = 'http-get' THEN json_extract(data, '$._m') ELSE json_extract(data, '$.m') END,
    external_id = coalesce(json_extract(data, '$.externalId'), json_extract(data, '$.id'));
`,
  postgres: `
  ALTER TABLE tracking_events ADD COLUMN source TEXT NOT NULL DEFAULT 'tracker';
  ALTER TABLE tracking_events ADD COLUMN url TEXT;
  ALTER TABLE tracking_events ADD COLUMN title TEXT;
  ALTER TABLE tracking_events ADD COLUMN event_name TEXT;
  ALTER TABLE tracking_events ADD COLUMN value DOUBLE PRECISION;
  ALTER TABLE tracking_events ADD COLUMN external_id TEXT;
  -- value: a number, or a string that reads as one (SQLite's REAL column takes both), else null.
  UPDATE tracking_events SET
    source = CASE w.via WHEN 'http-get' THEN 'events-get' WHEN 'http-post' THEN 'events-post' ELSE 'tracker' END,
    url = w.d ->> 'pu',
    title = w.d ->> 't',
    event_name = CASE WHEN w.via = 'http-get' THEN w.d ->> '_n' ELSE w.d ->> 'n' END,
    value = CASE
      WHEN jsonb_typeof(w.m) = 'number' THEN (w.m #>> '{}')::double precision
      WHEN jsonb_typeof(w.m) = 'string' AND w.m #>> '{}' ~ '^[[:space:]]*[-+]?([0-9]+[.]?[0-9]*|[.][0-9]+)([eE][-+]?[0-9]+)?[[:space:]]*$'
        THEN (w.m #>> '{}')::double precision
    END,
    external_id = coalesce(w.d ->> 'externalId', w.d ->> 'id')
    FROM (SELECT seq, d, d ->> 'via' AS via, CASE WHEN d ->> 'via' = 'http-get' THEN d -> '_m' ELSE d -> 'm' END AS m
      FROM (SELECT seq, data::jsonb AS d FROM tracking_events) AS e) AS w
    WHERE w.seq = tracking_events.seq;
`,
} satisfies Migration;
