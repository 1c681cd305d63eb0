/** Opens the platform database on PostgreSQL: the engine, with the schema created or brought up
 * to this version. Several processes may start at once: the first to take the migration lock
 * migrates, the others wait for it and then find nothing to do. */
import { sql, type Engine } from './engine';
import { postgresEngine, type PostgresEngine, type PostgresOptions } from './engine-postgres';
import { FIRST_POSTGRES_VERSION, stepsAfter } from './migrations';
import { SCHEMA_VERSION } from './schema';
import { POSTGRES_SCHEMA } from './schema-postgres';

/** Any constant: the key of the advisory lock held while migrating. */
const MIGRATION_LOCK = 0x5c0de;

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresEngine> {
  const engine = postgresEngine(url, options);
  try {
    await migratePostgres(engine);
  } catch (err) {
    await engine.close();
    throw err;
  }
  return engine;
}

/** Creates the schema, or brings the database's up to this version (all or nothing): the steps after
 * its version (migrations/), then the live schema, which makes a new database's tables and finds
 * them all in a migrated one. */
export async function migratePostgres(engine: Engine) {
  await engine.tx(async (db) => {
    // Held until this transaction ends; a second process starting now waits here.
    await db.value(sql<[number], { locked: string }>('SELECT pg_advisory_xact_lock(?) AS locked'), MIGRATION_LOCK);
    const hasMeta = await db.value(sql<[], { meta: string | null }>("SELECT to_regclass('meta')::text AS meta"));
    const found = hasMeta
      ? Number((await db.value(sql<[], { value: string }>("SELECT value FROM meta WHERE key = 'schema_version'"))) ?? 0)
      : 0;
    if (found > SCHEMA_VERSION)
      throw new Error(`the database has schema version ${found}; this platform knows up to ${SCHEMA_VERSION}`);
    if (found && found < FIRST_POSTGRES_VERSION)
      throw new Error(`the database has schema version ${found}, older than any PostgreSQL schema`);
    if (found) for (const step of stepsAfter(found)) await db.exec(step.postgres);
    await db.exec(POSTGRES_SCHEMA);
    await db.run(
      sql<[string]>(
        "INSERT INTO meta (key, value) VALUES ('schema_version', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value",
      ),
      String(SCHEMA_VERSION),
    );
  });
}

/** Why the server's statistics may go stale, or undefined: autovacuum also analyzes the tables as
 * they grow, and statements keep the plans they made from the statistics, so a server without it
 * plans a large table as the small one it was (a scan where an index would do) until someone runs
 * ANALYZE. Some servers are run that way (test machines); the platform says so once at start. */
export async function staleStatisticsWarning(engine: Engine): Promise<string | undefined> {
  const autovacuum = await engine.value(sql<[], { autovacuum: string }>('SHOW autovacuum'));
  if (autovacuum == 'on') return undefined;
  return 'PostgreSQL runs without autovacuum here (autovacuum = off): table statistics and the plans made from them go stale as tables grow; turn it on, or run ANALYZE regularly';
}
