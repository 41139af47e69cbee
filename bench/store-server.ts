/**
 * A server over an existing data directory, built with or without the access layer, for
 * bench/access.ts and bench/delta.ts: `node --import tsx bench/store-server.ts DATA_DIR PORT with|without`.
 * No simulator runs, so it serves a still board.
 */
import { AccessControl } from '../src/access/access-control.ts';
import { Authenticator } from '../src/access/authenticator.ts';
import { MemoryCounters } from '../src/access/counters/memory-counters.ts';
import { Board } from '../src/board/board.ts';
import { ChangeFeed } from '../src/board/change-feed.ts';
import { DelayedBoards } from '../src/board/delayed-boards.ts';
import { MemoryBus } from '../src/bus/memory-bus.ts';
import { buildApp } from '../src/http/app.ts';
import { Ledger } from '../src/ledger/ledger.ts';
import { openSqlite } from '../src/store/sqlite/database.ts';
import { SqliteHistoryStore } from '../src/store/sqlite/sqlite-history.ts';
import { SqliteKeyStore } from '../src/store/sqlite/sqlite-keys.ts';
import { SqliteStore } from '../src/store/sqlite/sqlite-store.ts';

const [dataDir, port, mode] = process.argv.slice(2);
if (!dataDir || !port || (mode !== 'with' && mode !== 'without')) {
  process.stderr.write('usage: store-server.ts DATA_DIR PORT with|without\n');
  process.exit(2);
}
const db = openSqlite(dataDir);
const store = new SqliteStore(db);
const board = new Board();
const bus = new MemoryBus();
new Ledger(store, board, bus);
const app = await buildApp({
  board,
  boards: new DelayedBoards(board, store, bus),
  feed: new ChangeFeed(store, bus, board.head),
  store,
  history: new SqliteHistoryStore(db),
  auth: new Authenticator(new SqliteKeyStore(db)),
  access: mode === 'with' ? new AccessControl(new MemoryCounters()) : undefined,
});
await app.listen({ port: Number(port), host: '127.0.0.1' });
process.once('SIGTERM', () => void app.close().then(() => process.exit(0)));
