/** 17 → 18: the visitors the dashboard counts come from their sessions (services/sessions.ts), not
 * from a row per visitor and hour or day. */
import type { Migration } from './migration';

export default {
  version: 18,
  sqlite: `
  DROP TABLE IF EXISTS rollup_visitors;
`,
  postgres: `
  DROP TABLE IF EXISTS rollup_visitors;
`,
} satisfies Migration;
