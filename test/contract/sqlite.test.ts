import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { openSqlite, type SqliteDatabase } from '../../src/store/sqlite/database.ts';
import { SqliteCounterStore } from '../../src/store/sqlite/sqlite-counters.ts';
import { SqliteHistoryStore } from '../../src/store/sqlite/sqlite-history.ts';
import { SqliteAdminTokenStore, SqliteKeyStore } from '../../src/store/sqlite/sqlite-secrets.ts';
import { adminTokenStoreContract } from './admin-tokens.contract.ts';
import { SqliteStore } from '../../src/store/sqlite/sqlite-store.ts';
import { counterStoreContract } from './counter-store.contract.ts';
import { historyContract } from './history.contract.ts';
import { keyStoreContract } from './keys.contract.ts';
import { storeContract } from './store.contract.ts';

/** A fresh data directory per case; every database opened on it is closed before it is removed. */
function dataDir(): { open(): SqliteDatabase; cleanup(): Promise<void> } {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-contract-'));
  const opened: SqliteDatabase[] = [];
  return {
    open() {
      const db = openSqlite(dir);
      opened.push(db);
      return db;
    },
    async cleanup() {
      for (const db of opened) if (db.open) db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

storeContract('SQLite', async () => {
  const dir = dataDir();
  return {
    store: new SqliteStore(dir.open()),
    reopen: async () => new SqliteStore(dir.open()),
    cleanup: dir.cleanup,
  };
});

storeContract('SQLite as serve opens it: checkpoints and page reads on threads of their own', async () => {
  const dir = dataDir();
  const stores: SqliteStore[] = [];
  const open = () => {
    const store = new SqliteStore(dir.open(), { checkpointMs: 10, pageThread: true });
    stores.push(store);
    return store;
  };
  return {
    store: open(),
    reopen: async () => open(),
    cleanup: async () => {
      for (const s of stores) await s.close();
      await dir.cleanup();
    },
  };
});

historyContract('SQLite', async () => {
  const dir = dataDir();
  const db = dir.open();
  return { store: new SqliteStore(db), history: new SqliteHistoryStore(db), cleanup: dir.cleanup };
});

historyContract("SQLite as serve opens it: the log's reads on the page reader's thread", async () => {
  const dir = dataDir();
  const db = dir.open();
  const store = new SqliteStore(db, { pageThread: true });
  return {
    store,
    history: store.history(),
    cleanup: async () => {
      await store.close();
      await dir.cleanup();
    },
  };
});

keyStoreContract('SQLite', async () => {
  const dir = dataDir();
  return {
    keys: new SqliteKeyStore(dir.open()),
    reopen: async () => new SqliteKeyStore(dir.open()),
    cleanup: dir.cleanup,
  };
});

adminTokenStoreContract('SQLite', async () => {
  const dir = dataDir();
  return {
    tokens: new SqliteAdminTokenStore(dir.open()),
    reopen: async () => new SqliteAdminTokenStore(dir.open()),
    cleanup: dir.cleanup,
  };
});

counterStoreContract('SQLite', async () => {
  const dir = dataDir();
  return {
    counters: new SqliteCounterStore(dir.open()),
    reopen: async () => new SqliteCounterStore(dir.open()),
    cleanup: dir.cleanup,
  };
});
