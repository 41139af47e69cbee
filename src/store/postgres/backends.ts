import type { CounterStore } from '../counters.ts';
import type { HistoryStore } from '../history.ts';
import type { KeyStore } from '../keys.ts';
import { describeUrl, isUnusableDatabase, migrate, openPool, type PgPool } from './database.ts';
import { MIGRATIONS } from './schema.ts';
import { PgCounterStore } from './pg-counters.ts';
import { PgAdminTokenStore, PgKeyStore } from './pg-secrets.ts';
import type { AdminTokenStore } from '../admin-tokens.ts';
import { PgStore } from './pg-store.ts';

/** The storage backends of one PostgreSQL database, as the composition root wires them. */
/** The database of a URL cannot be used as configured; the message says why, without the password. */
export class DatabaseUnusableError extends Error {}

/** Runs `open`, turning the errors a person fixes in the URL or the server into one clear line. */
async function opening<T>(url: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    if (!isUnusableDatabase(err)) throw err;
    throw new DatabaseUnusableError(
      `the database ${describeUrl(url)} cannot be used: ${(err as Error).message}; check --database-url (env DATABASE_URL)`,
    );
  }
}

export interface PostgresBackends {
  store: PgStore;
  keys: KeyStore;
  adminTokens: AdminTokenStore;
  history: HistoryStore;
  counterStore: CounterStore;
  /** Bytes the database takes on disk (metrics). */
  bytesOnDisk(): Promise<number>;
  /** Why the store cannot take writes now (its writer away from PostgreSQL), if it cannot. */
  writeProblem(): string | undefined;
  /**
   * Set on a `standby` start that found the writer lock held by another process: resolves once this
   * one holds it (rejects if the store is closed first).
   */
  writerLock?: Promise<void>;
}

/**
 * Opens the store of `url` (its schema migrated), and unless `reader` takes the writer's lock before
 * anything is loaded: a second server on the same database waits here, told through `onWait`, until
 * the first one stops, and then loads what that one committed. A `standby` does not wait here: when
 * another process holds the lock it returns at once with `writerLock`, and serves as a reader until
 * that resolves. A `reader` (an API node) never takes the lock: it must not write.
 */
export async function openPostgresBackends(
  url: string,
  opts: { onError: (err: unknown) => void; onWait?: () => void; reader?: boolean; standby?: boolean },
): Promise<PostgresBackends> {
  const store = await opening(url, () => PgStore.open(url, { onError: opts.onError }));
  if (opts.reader === true) return backendsOf(store);
  let waiting!: () => void;
  const told = new Promise<'waiting'>((resolve) => (waiting = () => resolve('waiting')));
  const held = store.writer.hold(() => {
    opts.onWait?.();
    waiting();
  });
  try {
    const first = await Promise.race([held.then(() => 'held' as const), ...(opts.standby === true ? [told] : [])]);
    if (first === 'waiting') return { ...backendsOf(store), writerLock: held.then(() => undefined) };
  } catch (err) {
    await store.close();
    throw err;
  }
  return backendsOf(store);
}

function backendsOf(store: PgStore): PostgresBackends {
  return {
    store,
    keys: new PgKeyStore(store.pool),
    adminTokens: new PgAdminTokenStore(store.pool),
    history: store.history(),
    counterStore: new PgCounterStore(store.pool),
    bytesOnDisk: () => databaseBytes(store.pool),
    writeProblem: () => {
      const state = store.writer.state;
      return state.holding ? undefined : state.why;
    },
  };
}

async function databaseBytes(pool: PgPool): Promise<number> {
  return (await pool.query<{ bytes: number }>('SELECT pg_database_size(current_database()) AS bytes')).rows[0]!.bytes;
}

/** Keys, saved counters and meta of the database, for the `keys` commands beside running servers. */
export async function openPostgresAccounts(url: string): Promise<{
  keys: KeyStore;
  adminTokens: AdminTokenStore;
  counterStore: CounterStore;
  getMeta(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}> {
  const pool = await openPool(url, { maxConnections: 2 });
  try {
    await opening(url, () => migrate(pool));
  } catch (err) {
    await pool.end();
    throw err;
  }
  return {
    keys: new PgKeyStore(pool),
    adminTokens: new PgAdminTokenStore(pool),
    counterStore: new PgCounterStore(pool),
    getMeta: async (key) =>
      (await pool.query<{ value: string }>('SELECT value FROM meta WHERE key = $1', [key])).rows[0]?.value,
    close: () => pool.end(),
  };
}

/** Runs the migrations of `url` alone (`oddsbase migrate`): the versions applied, and the newest. */
export async function migratePostgres(url: string): Promise<{ applied: number[]; version: number }> {
  const pool = await openPool(url, { maxConnections: 1 });
  try {
    return { applied: await opening(url, () => migrate(pool)), version: MIGRATIONS.at(-1)!.version };
  } finally {
    await pool.end();
  }
}
