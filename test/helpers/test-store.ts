import { createHash } from 'node:crypto';
import { resolve } from 'node:path';

/**
 * Where the test servers keep their store. By default the SQLite file of their data directory; with
 * ODDSBASE_TEST_POSTGRES (a URL of a PostgreSQL server whose user may create databases, set by the
 * cluster tier), a database of that server per data directory: a test that starts a server again on
 * the same directory finds the same database. pg is loaded only then.
 */
export const TEST_POSTGRES = process.env.ODDSBASE_TEST_POSTGRES;

function databaseName(dataDir: string): string {
  return `d${createHash('sha256').update(resolve(dataDir)).digest('hex').slice(0, 24)}`;
}

async function admin<T>(work: (query: (sql: string) => Promise<unknown>) => Promise<T>): Promise<T> {
  const { default: pg } = await import('pg');
  const client = new pg.Client({ connectionString: TEST_POSTGRES });
  await client.connect();
  try {
    return await work((sql) => client.query(sql));
  } finally {
    await client.end();
  }
}

/** The database URL of a test server's data directory (made on first use), or undefined for SQLite. */
export async function testDatabaseUrl(dataDir: string): Promise<string | undefined> {
  if (TEST_POSTGRES === undefined) return undefined;
  const name = databaseName(dataDir);
  await admin(async (query) => {
    const found = (await query(`SELECT 1 FROM pg_database WHERE datname = '${name}'`)) as { rowCount: number };
    if (found.rowCount === 0) await query(`CREATE DATABASE ${name}`);
  });
  const url = new URL(TEST_POSTGRES);
  url.pathname = `/${name}`;
  return url.href;
}

/** Drops the database of a data directory, when the servers use PostgreSQL. */
export async function dropTestDatabase(dataDir: string): Promise<void> {
  if (TEST_POSTGRES === undefined) return;
  await admin((query) => query(`DROP DATABASE IF EXISTS ${databaseName(dataDir)} WITH (FORCE)`));
}
