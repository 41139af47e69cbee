import type { FastifyInstance } from 'fastify';
import { AccessControl } from './access/access-control.ts';
import { Authenticator } from './access/authenticator.ts';
import { MemoryCounters } from './access/counters/memory-counters.ts';
import { generateKey, type KeyStore, newKeyRecord } from './access/keys.ts';
import { Board } from './board/board.ts';
import { ChangeFeed } from './board/change-feed.ts';
import { DelayedBoards } from './board/delayed-boards.ts';
import { MemoryBus } from './bus/memory-bus.ts';
import type { ServeConfig } from './config.ts';
import type { Simulator } from './feeds/simulator/index.ts';
import { buildApp } from './http/app.ts';
import { Ledger } from './ledger/ledger.ts';
import { openSqlite } from './store/sqlite/database.ts';
import { SqliteHistoryStore } from './store/sqlite/sqlite-history.ts';
import { SqliteKeyStore } from './store/sqlite/sqlite-keys.ts';
import { SqliteCounterSnapshot } from './store/sqlite/sqlite-counters.ts';
import { SqliteStore } from './store/sqlite/sqlite-store.ts';

export interface RunningServer {
  app: FastifyInstance;
  board: Board;
  ledger: Ledger;
  keys: KeyStore;
  counters: MemoryCounters;
  simulator?: Simulator;
  /** The address the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  close(): Promise<void>;
}

export interface StartOptions {
  /** Lines meant for the person who started the server (demo key, progress). */
  say?: (line: string) => void;
  /** ms clock for the simulator, commits, delays and limits; tests inject one. */
  now?: () => number;
}

const DEMO_KEY_META = 'demo_key_issued_at';
const SEED_META = 'simulator_seed';

/**
 * Opens the store, rebuilds the board, fills the simulator's history, then listens. The demo key
 * is created on the first start of an empty store only; the store remembers that it did.
 */
export async function startServer(config: ServeConfig, opts: StartOptions = {}): Promise<RunningServer> {
  const say = opts.say ?? ((line: string) => process.stdout.write(`${line}\n`));
  const db = openSqlite(config.dataDir);
  const store = new SqliteStore(db);
  const keys = new SqliteKeyStore(db);
  const board = new Board();
  const bus = new MemoryBus();
  const now = opts.now ?? Date.now;
  const ledger = new Ledger(store, board, bus, now);

  let demoKey: string | undefined;
  if (store.getMeta(DEMO_KEY_META) === undefined && keys.count() === 0) {
    demoKey = generateKey();
    keys.insert(newKeyRecord(demoKey, 'ultra', { label: 'demo' }));
    store.setMeta(DEMO_KEY_META, new Date().toISOString());
  }

  let simulator: Simulator | undefined;
  if (config.simulator) {
    const storedSeed = store.getMeta(SEED_META);
    let seed = config.seed;
    if (storedSeed === undefined) store.setMeta(SEED_META, String(seed));
    else if (Number(storedSeed) !== seed) {
      say(`note: this data directory was filled with seed ${storedSeed}; continuing with it (not ${seed})`);
      seed = Number(storedSeed);
    }
    // Loaded only when wanted: a --no-simulator server never loads the simulator's code.
    const { Simulator } = await import('./feeds/simulator/index.ts');
    simulator = new Simulator({ seed, speed: config.speed, sink: ledger, state: board, now, log: say });
    const started = Date.now();
    let lastShown = 0;
    simulator.backfill((done, total) => {
      const pct = Math.floor((done / Math.max(total, 1)) * 100);
      if (pct >= lastShown + 10 || done === total) {
        lastShown = pct;
        say(`simulator: filling history ${pct}% (${board.head} changes)`);
      }
    });
    say(`simulator: ready in ${((Date.now() - started) / 1000).toFixed(1)} s, ${board.events.size} events`);
  }

  const feed = new ChangeFeed(store, bus, board.head, { now });
  const boards = new DelayedBoards(board, store, bus, now);
  const counters = new MemoryCounters(now);
  // Usage survives restarts and is visible to `oddsbase keys show`.
  const snapshot = new SqliteCounterSnapshot(db);
  counters.restore(snapshot.load(now()));
  const saveCounters = () => snapshot.save(counters.takeChanged());
  const saver = setInterval(saveCounters, 1000);
  saver.unref();
  const access = new AccessControl(counters, now);
  const app = await buildApp({
    board,
    boards,
    feed,
    store,
    history: new SqliteHistoryStore(db),
    auth: new Authenticator(keys, 2000, now),
    access,
    keyHeader: config.keyHeader,
    log: config.logLevel === 'silent' ? undefined : { level: config.logLevel },
  });
  await app.listen({ port: config.port, host: config.host });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `http://${shownHost}:${port}`;
  simulator?.start();

  if (demoKey) {
    say('');
    say('A demo key (Ultra tier) was created for this data directory. It is shown only this once:');
    say(`  ${demoKey}`);
    say('Try it:');
    say(`  curl -H '${config.keyHeader}: ${demoKey}' ${url}/api/v2/sports/4/events/$(date -u +%F)`);
    say('');
  }
  say(`oddsbase listening on ${url} (docs: ${url}/docs)`);

  let closed = false;
  return {
    app,
    board,
    ledger,
    keys,
    counters,
    simulator,
    url,
    async close() {
      if (closed) return;
      closed = true;
      simulator?.stop();
      await app.close();
      clearInterval(saver);
      saveCounters();
      feed.close();
      boards.close();
      await bus.close();
      store.close();
    },
  };
}
