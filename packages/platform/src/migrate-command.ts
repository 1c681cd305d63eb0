/** `svc-platform migrate --from FILE --to postgres://…`: copies a SQLite platform database into a
 * new PostgreSQL one, with a progress bar. The SQLite file is first brought up to this version's
 * schema, as starting the platform on it would. */
import { existsSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { SingleBar } from 'cli-progress';
import { copyToPostgres } from './db/copy-to-postgres';
import { isPostgresUrl, withoutPassword as shown } from './db/engine-postgres';
import { openDatabase } from './db/open';
import { openPostgres } from './db/open-postgres';

export const MIGRATE_HELP = `svc-platform migrate — copy a SQLite platform database into PostgreSQL

  --from FILE        the SQLite database (default .data/platform.db)
  --to URL           the PostgreSQL database, postgres://user@host:port/db (default: env
                     DATABASE_URL); it must hold no platform data yet
  --help

Every table is copied in one transaction: a failed copy leaves the target as it was.`;

export async function migrateCommand(argv: string[]) {
  const { values } = parseArgs({
    args: argv,
    options: {
      from: { type: 'string', default: '.data/platform.db' },
      to: { type: 'string' },
      help: { type: 'boolean', default: false },
    },
  });
  if (values.help) return console.log(MIGRATE_HELP);
  const to = values.to ?? process.env.DATABASE_URL;
  if (!to) throw new Error('--to postgres://… is required (or set DATABASE_URL)');
  if (!isPostgresUrl(to)) throw new Error(`--to must be a postgres:// URL, not "${shown(to)}"`);
  if (!existsSync(values.from)) throw new Error(`--from ${values.from}: no such file`);

  const source = openDatabase(values.from);
  const target = await openPostgres(to);
  const bar = new SingleBar({
    format: 'Copying [{bar}] {value}/{total} rows ({percentage}%) {eta}s left',
    stream: process.stderr,
    noTTYOutput: true,
    notTTYSchedule: 1000,
  });
  try {
    let done = 0;
    const copied = await copyToPostgres(source, target, {
      total: (rows) => bar.start(rows, 0),
      copied: (rows) => bar.update((done += rows)),
    });
    bar.stop();
    const rows = Object.values(copied).reduce((a, b) => a + b, 0);
    console.log(`Copied ${rows} rows of ${Object.keys(copied).length} tables from ${values.from} to ${shown(to)}.`);
  } finally {
    bar.stop();
    source.close();
    await target.close();
  }
}
