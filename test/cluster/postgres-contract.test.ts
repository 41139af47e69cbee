import { after } from 'node:test';
import { PgStore } from '../../src/store/postgres/pg-store.ts';
import { PgCounterStore } from '../../src/store/postgres/pg-counters.ts';
import { PgAdminTokenStore, PgKeyStore } from '../../src/store/postgres/pg-secrets.ts';
import { openPool, migrate, type PgPool } from '../../src/store/postgres/database.ts';
import { counterStoreContract } from '../contract/counter-store.contract.ts';
import { historyContract } from '../contract/history.contract.ts';
import { keyStoreContract } from '../contract/keys.contract.ts';
import { adminTokenStoreContract } from '../contract/admin-tokens.contract.ts';
import { storeContract } from '../contract/store.contract.ts';
import { type PostgresService, startPostgres } from './services/postgres.ts';

// One server for the file, a new database per case: the contract suites of test/contract, unchanged.
// The migrations themselves run in migrations.test.ts.
let service: Promise<PostgresService> | undefined;
const postgres = () => (service ??= startPostgres());
after(async () => {
  if (service) await (await service).stop();
});

/** An empty database brought to the newest schema once: each case's database is a copy of it. */
let migrated: Promise<string> | undefined;
async function template(pg: PostgresService): Promise<string> {
  migrated ??= (async () => {
    const url = await pg.createDatabase();
    const p = await openPool(url);
    try {
      await migrate(p);
    } finally {
      await p.end();
    }
    return url;
  })();
  return migrated;
}

/**
 * A new database for one case (its migrations already applied; a store's open finds none to run);
 * what the case opened on it is closed before it is dropped.
 */
async function database(): Promise<{ url: string; closing: (() => Promise<void>)[]; cleanup(): Promise<void> }> {
  const pg = await postgres();
  const url = await pg.createDatabase(await template(pg));
  const closing: (() => Promise<void>)[] = [];
  return {
    url,
    closing,
    async cleanup() {
      for (const close of closing) await close();
      await pg.dropDatabase(url);
    },
  };
}

async function pool(db: Awaited<ReturnType<typeof database>>): Promise<PgPool> {
  const p = await openPool(db.url);
  let ended = false;
  db.closing.push(async () => {
    if (!ended) await p.end();
    ended = true;
  });
  await migrate(p);
  return p;
}

async function store(db: Awaited<ReturnType<typeof database>>): Promise<PgStore> {
  const s = await PgStore.open(db.url);
  db.closing.push(() => s.close());
  return s;
}

storeContract('PostgreSQL', async () => {
  const db = await database();
  return { store: await store(db), reopen: () => store(db), cleanup: db.cleanup };
});

historyContract('PostgreSQL', async () => {
  const db = await database();
  const s = await store(db);
  return { store: s, history: s.history(), cleanup: db.cleanup };
});

keyStoreContract('PostgreSQL', async () => {
  const db = await database();
  return {
    keys: new PgKeyStore(await pool(db)),
    reopen: async () => new PgKeyStore(await pool(db)),
    cleanup: db.cleanup,
  };
});

adminTokenStoreContract('PostgreSQL', async () => {
  const db = await database();
  return {
    tokens: new PgAdminTokenStore(await pool(db)),
    reopen: async () => new PgAdminTokenStore(await pool(db)),
    cleanup: db.cleanup,
  };
});

counterStoreContract('PostgreSQL', async () => {
  const db = await database();
  return {
    counters: new PgCounterStore(await pool(db)),
    reopen: async () => new PgCounterStore(await pool(db)),
    cleanup: db.cleanup,
  };
});
