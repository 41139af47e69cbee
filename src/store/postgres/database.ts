import type pg from 'pg';
import { MIGRATIONS } from './schema.ts';

type Driver = typeof pg;
let loaded: Promise<Driver> | undefined;

/**
 * The driver, loaded at the first connection: the server's bundle (bin/bundle.js) keeps a static
 * import of a package at its top, so an embedded server would load pg at every start.
 */
function driver(): Promise<Driver> {
  loaded ??= import('pg').then((m) => m.default);
  return loaded;
}

export type PgPool = pg.Pool;
export type PgClient = pg.Client | pg.PoolClient;

/**
 * Advisory lock keys (one database, one store): migrations, and the single writer. Arbitrary
 * constants, fixed forever: another oddsbase version must take the same locks.
 */
const MIGRATION_LOCK = 0x6f64_6d69; // 'odmi'
export const WRITER_LOCK = 0x6f64_7772; // 'odwr'

/**
 * Ids, times in ms and counters are bigint columns: read back as numbers. Ids stay below 2^53 (the
 * ledger's are JavaScript numbers to begin with), so nothing is lost.
 */
function typesOf(driver: Driver): pg.CustomTypesConfig {
  return {
    getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
      oid === driver.types.builtins.INT8 && format !== 'binary'
        ? (text: string) => Number(text)
        : driver.types.getTypeParser(oid, format as 'text')) as Driver['types']['getTypeParser'],
  };
}

export interface PgOptions {
  /** Connections of the pool that serves reads (the writer has one of its own). */
  maxConnections?: number;
  onError?: (err: unknown) => void;
}

/** A pool of `url` that reads bigints as numbers; an idle connection's error goes to `onError`. */
export async function openPool(url: string, opts: PgOptions = {}): Promise<PgPool> {
  const pg = await driver();
  const pool = new pg.Pool({ connectionString: url, max: opts.maxConnections ?? 8, types: typesOf(pg) });
  // A connection that breaks while idle in the pool is dropped by it; without a listener the
  // error would end the process.
  pool.on('error', (err) => opts.onError?.(err));
  return pool;
}

/** A connection of its own (the writer's, which holds its lock for as long as it lives). */
export async function connectClient(url: string, onError?: (err: unknown) => void): Promise<pg.Client> {
  const pg = await driver();
  const client = new pg.Client({ connectionString: url, types: typesOf(pg) });
  client.on('error', (err) => onError?.(err));
  await client.connect();
  return client;
}

/**
 * Brings the schema to the newest version. Several nodes may start at once: the migrations run
 * under an advisory lock, so one applies them and the others find them applied. Returns the
 * versions applied by this call.
 */
export async function migrate(pool: PgPool): Promise<number[]> {
  const client = await pool.connect();
  const applied: number[] = [];
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(
        `CREATE TABLE IF NOT EXISTS schema_migrations (
           version integer PRIMARY KEY,
           name text NOT NULL,
           applied_at timestamptz NOT NULL DEFAULT now()
         )`,
      );
      const done = new Set(
        (await client.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => r.version),
      );
      for (const m of MIGRATIONS) {
        if (done.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          await client.query(m.sql);
          await client.query('INSERT INTO schema_migrations (version, name) VALUES ($1, $2)', [m.version, m.name]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
        applied.push(m.version);
      }
      const newest = Math.max(...done, ...applied);
      const known = MIGRATIONS.at(-1)!.version;
      if (newest > known) {
        throw new Error(
          `the database's schema is version ${newest}, newer than this oddsbase knows (${known}): upgrade oddsbase`,
        );
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
  return applied;
}

/** Runs `work` in a transaction of `client`, rolled back if it throws. */
export async function inTransaction<T>(client: PgClient, work: () => Promise<T>): Promise<T> {
  await client.query('BEGIN');
  try {
    const result = await work();
    await client.query('COMMIT');
    return result;
  } catch (err) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw err;
  }
}

/**
 * Whether an error says the database cannot be reached or used as configured (refused or unknown
 * host, a timeout, a bad password, no such database, no right to make the schema) rather than a
 * fault of oddsbase: a person fixes those in the URL or the server.
 */
export function isUnusableDatabase(err: unknown): boolean {
  const code = (err as { code?: unknown }).code;
  if (typeof code !== 'string') return false;
  return /^(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|08|28|3D|42501|53|57P03)/.test(code);
}

/** Where a URL points, without its password: for messages. */
export function describeUrl(url: string): string {
  try {
    const u = new URL(url);
    return `${u.hostname}:${u.port || 5432}${u.pathname}`;
  } catch {
    return 'the database';
  }
}
