import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { AccessControl } from './access/access-control.ts';
import { noteUpgradeClients, TrustedProxies } from './access/client-address.ts';
import { Authenticator } from './access/authenticator.ts';
import type { CounterStore } from './store/counters.ts';
import { MemoryCounters } from './access/counters/memory-counters.ts';
import type { SavedCounters } from './access/counters/counters.ts';
import { RedisCounters } from './access/counters/redis-counters.ts';
import { CounterSaver } from './access/counters/counter-saver.ts';
import { type ConnectionSlots, LocalConnectionSlots } from './access/connection-slots.ts';
import { RedisConnectionSlots } from './access/redis-connection-slots.ts';
import { isBurstCounter, SharedBursts } from './access/bursts.ts';
import { TIERS } from './catalog/tiers.ts';
import { entitlementsFor } from './access/entitlements.ts';
import { FAILED_KEY_CHECK_LIMITS, FailedKeyChecks, isFailedKeyCounter } from './access/failed-auth.ts';
import { Sessions } from './access/sessions.ts';
import { DEMO_KEY_CLEAR_META, type KeyStore } from './store/keys.ts';
import type { AdminTokenStore } from './store/admin-tokens.ts';
import { ArchivedEvents } from './board/archived-events.ts';
import { Board } from './board/board.ts';
import { ChangeFeed } from './board/change-feed.ts';
import { Follower } from './board/follower.ts';
import { RetentionFollower } from './board/retention-follower.ts';
import { DelayedViews } from './board/delayed-views.ts';
import { LogFloor } from './board/log-floor.ts';
import type { LoadProgress } from './board/apply.ts';
import type { LoadedLog } from './board/load.ts';
import { loadBoardSnapshot, saveBoardSnapshot, SNAPSHOT_FILE } from './board/board-snapshot.ts';
import { PLAIN } from './perf/switch.ts';
import { counterSendGaps } from './perf/send-gap.ts';
import { growHeapForWrites } from './perf/heap-growth.ts';
import type { Bus } from './bus/bus.ts';
import { MemoryBus } from './bus/memory-bus.ts';
import { RedisBus } from './bus/redis/redis-bus.ts';
import { isLoopback, MB, type ServeConfig, type UpstreamConfig } from './config.ts';
import { buildApp } from './http/app.ts';
import { Ledger, LedgerBusyError, type LedgerOptions } from './ledger/ledger.ts';
import { ARCHIVED_HEADERS_MS } from './ledger/retention-steps.ts';
import { Retention } from './ledger/retention.ts';
import { AccessSummary } from './ops/access-summary.ts';
import { beginEpochIfRestored, beginFreshLog, epochGaps } from './ops/backup.ts';
import { healthRoutes, Readiness, StoreProbe } from './ops/health.ts';
import { AdminTokens } from './access/admin-tokens.ts';
import { IngestFeed } from './feeds/ingest/ingest-feed.ts';
import { DailyBudget } from './feeds/upstream/budget.ts';
import { RequestPacer } from './feeds/upstream/pacer.ts';
import { UpstreamMirror } from './feeds/upstream/mirror-feed.ts';
import { OddsbaseClient, type WebSocketConstructor } from '../packages/client/src/index.ts';
import { WebSocket } from 'ws';
import { ingestRoutes } from './http/routes/admin/ingest.ts';
import { logDestination } from './ops/logging.ts';
import { metricsRoute } from './ops/metrics-endpoint.ts';
import { Metrics } from './ops/metrics.ts';
import { observeRequests } from './ops/observe-requests.ts';
import { closeApp } from './ops/shutdown.ts';
import { codeVersion, packageRoot, packageVersion } from './ops/version.ts';
import { webPageRoutes } from './http/web-page.ts';
import { sessionRoutes } from './http/session-routes.ts';
import { makeTurns } from './perf/turns.ts';
import type { HistoryStore } from './store/history.ts';
import { checkDataDir, StartError } from './ops/preflight.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import {
  openSqlite,
  readSqliteMeta,
  type SqliteDatabase,
  sqliteBytesOnDisk,
  STORE_FILE,
  storeNeedsUpgrade,
} from './store/sqlite/database.ts';
import { SqliteCounterStore } from './store/sqlite/sqlite-counters.ts';
import { SqliteAdminTokenStore, SqliteKeyStore } from './store/sqlite/sqlite-secrets.ts';
import { SqliteStore } from './store/sqlite/sqlite-store.ts';
import { EPOCH_META, type Store } from './store/store.ts';
import type { LogSnapshot } from './store/log-reader.ts';
import { openSqliteLogSnapshot } from './store/sqlite/sqlite-log-reader.ts';
import { StreamHub } from './stream/stream-hub.ts';
import { sessionDenial, streamDenial } from './stream/stream-access.ts';
import { asyncApiRoute } from './stream/asyncapi.ts';
import { streamPlainGetRoutes } from './stream/plain-get-route.ts';
import { streamTokenRoute } from './stream/token-route.ts';
import { StreamTokens } from './stream/tokens.ts';
import { attachStreams } from './stream/upgrade.ts';
import { estimateLoad, type LoadEstimate, parseLoadTiming } from './ops/load-estimate.ts';
import { holdTickShape } from './ops/tick-shape.ts';

/** The storage backends of one data directory. */
export interface Backends {
  store: Store;
  keys: KeyStore;
  /** Tokens of the admin routes (the ingest feed's), kept apart from API keys. */
  adminTokens: AdminTokenStore;
  history: HistoryStore;
  counterStore: CounterStore;
  bus: Bus;
  /** Bytes the store takes on disk (metrics). */
  bytesOnDisk(): Promise<number>;
  /** Why the store cannot take writes now, if it cannot (a PostgreSQL writer reconnecting). */
  writeProblem?: () => string | undefined;
  /** Set when another process holds the writer lock: resolves once this one holds it (a hot standby). */
  writerLock?: Promise<void>;
}

/** Everything a server runs, built and wired, not yet listening. */
export interface Services extends Backends {
  config: ServeConfig;
  board: Board;
  views: DelayedViews;
  /** The writer of the log; an API node (`--role api`) has none, and reading it there throws. */
  ledger: Ledger;
  /**
   * The ledger's retention: compaction of the log and archiving of finished events, on a timer;
   * an API node has none, and reading it there throws.
   */
  retention: Retention;
  /** What keeps an API node's board current from the bus; undefined on a writer. */
  follower: Follower | undefined;
  /**
   * `--feed upstream`: the mirror of another server, started once the server listens; on a standby
   * writer, made as it takes over (and started by the server then).
   */
  readonly mirror: UpstreamMirror | undefined;
  /**
   * Set on a standby writer (it serves as an API node while another holds the writer lock):
   * resolves once it has taken over, its ledger and retention running; rejects if it closed first.
   */
  takeover?: Promise<void>;
  feed: ChangeFeed;
  counters: SavedCounters;
  access: AccessControl;
  auth: Authenticator;
  app: FastifyInstance;
  metrics: Metrics;
  /** The WebSocket streams (src/stream), served on the app's HTTP server. */
  streams: StreamHub;
  /** What `/readyz` answers. */
  readiness: Readiness;
  /** Ids the log skipped (a new log's base, a restore's gap): the head less these counts the changes. */
  skippedIds: number;
  /** Saves the usage counters now (also done every `counterSaveMs`). */
  saveCounters(): Promise<void>;
  /**
   * Runs the history fill before the server listens: the store groups its commits (`Store.fill`)
   * and the change feed keeps none of its rows in memory (`ChangeFeed.fill`).
   */
  fill<T>(run: () => Promise<T>): Promise<T>;
  /**
   * Closes the app (requests in flight get `shutdownGraceMs`), waits for the ledger's last batch,
   * saves the counters and closes every backend, in order; the feeds must be stopped first.
   */
  close(): Promise<void>;
}

export interface ComposeOptions {
  /** ms clock for commits, delays and limits; tests inject one. */
  now?: () => number;
  /** Where errors of background work go (a bus listener that threw, a failed counter save). */
  onError?: (err: unknown) => void;
  /** Serve without the access layer: every route open and unmetered (to measure what it costs). */
  withoutAccess?: boolean;
  /** Where the log goes instead of standard output (tests read it). */
  logStream?: NodeJS.WritableStream;
  /** Told as the store's load begins, with how long it may take (src/ops/load-estimate.ts). */
  onLoading?: (estimate: LoadEstimate) => void;
  /** Told how far the store's load is, at each of its parts and every few thousand rows. */
  onLoadProgress?: (p: LoadProgress) => void;
  /** Told, in a line for the person running the server, what came of the board snapshot at start and at close. */
  onSnapshot?: (line: string) => void;
  /** Told when another process holds the database's writer lock and the start waits for it. */
  onWriterWait?: () => void;
  /** Told when an API node waits for a writer to begin the log of an empty database. */
  onLogWait?: () => void;
  /**
   * Run on the store once it is open, before its log is begun or loaded: a replay gives an empty
   * store the recorded log's epoch (src/ops/recorded-log.ts).
   */
  prepareStore?: (store: Store) => Promise<void>;
}

/** How long the last load of the store took (ms) and the rows it held: the next start's estimate of its own. */
const LOAD_MS_META = 'store_load_ms';

/** Where a store lives: the embedded SQLite file of a data directory, or a PostgreSQL database. */
export interface StoreTarget {
  dataDir: string;
  databaseUrl?: string | undefined;
}

/**
 * The one place a backend is chosen: the PostgreSQL store when a database URL is configured, else
 * the embedded SQLite store of the data directory; the bus given (Redis with --redis-url), else the
 * in-process one.
 */
export async function openBackends(
  config: ServeConfig,
  onError: (err: unknown) => void,
  bus: Bus = new MemoryBus(onError),
  onWriterWait?: () => void,
): Promise<Backends> {
  if (config.databaseUrl !== undefined) {
    // Loaded only when asked: the embedded server and the Node-only test tier never load pg.
    const { openPostgresBackends } = await import('./store/postgres/backends.ts');
    const pg = await openPostgresBackends(config.databaseUrl, {
      onError,
      reader: config.role === 'api',
      // A cluster's second writer follows the bus while it waits; without a bus, or replaying a
      // recording, it waits unserving.
      standby: config.role === 'writer' && config.redisUrl !== undefined && config.replay === undefined,
      ...(onWriterWait ? { onWait: onWriterWait } : {}),
    });
    return { ...pg, bus };
  }
  const db = openSqlite(config.dataDir);
  const store = new SqliteStore(db, { checkpointMs: config.limits.checkpointMs, pageThread: true, onError });
  return {
    store,
    keys: new SqliteKeyStore(db),
    adminTokens: new SqliteAdminTokenStore(db),
    history: store.history(),
    counterStore: new SqliteCounterStore(db),
    bus,
    bytesOnDisk: () => sqliteBytesOnDisk(config.dataDir),
  };
}

/**
 * Brings a store's schema to this version and closes it (`oddsbase migrate`); `serve` does the same
 * at every start. A SQLite file is upgraded as it is opened, under the data directory's lock (no
 * server may run on it meanwhile); PostgreSQL's migrations run under an advisory lock beside
 * running servers. Returns what was done, in a line.
 */
export async function migrateStore(target: StoreTarget): Promise<string> {
  if (target.databaseUrl !== undefined) {
    const { migratePostgres } = await import('./store/postgres/backends.ts');
    const { applied, version } = await migratePostgres(target.databaseUrl);
    return applied.length === 0
      ? `the database's schema is at version ${version}: nothing to apply`
      : `applied migration${applied.length > 1 ? 's' : ''} ${applied.join(', ')}: the schema is at version ${version}`;
  }
  checkDataDir(target.dataDir);
  const lock = lockDataDir(target.dataDir, 'oddsbase migrate');
  try {
    openSqlite(target.dataDir).close();
  } finally {
    lock.release();
  }
  return `the store in ${target.dataDir} is up to date`;
}

/**
 * A read-only snapshot of a target's change log (`oddsbase record`), taken beside a running server
 * without its lock; undefined when an embedded target has no store file.
 */
export async function openLogSnapshot(target: StoreTarget): Promise<LogSnapshot | undefined> {
  if (target.databaseUrl !== undefined) {
    const { openPgLogSnapshot } = await import('./store/postgres/pg-log-reader.ts');
    return openPgLogSnapshot(target.databaseUrl);
  }
  return openSqliteLogSnapshot(target.dataDir);
}

/** What the `keys` and `admin-tokens` commands use beside a running server: keys, tokens, saved counters and meta. */
export interface AccountBackends {
  keys: KeyStore;
  adminTokens: AdminTokenStore;
  counterStore: CounterStore;
  getMeta(key: string): Promise<string | undefined>;
  close(): Promise<void>;
}

/**
 * The key store of a target for the `keys` commands, which share it with a running server. An
 * embedded store must exist unless `create` (a mistyped --data-dir would otherwise get a store of
 * its own: keys listed from nothing, or made where no server looks); it is opened without the data
 * directory's lock (SQLite serialises the small writes), except when it still has to be upgraded:
 * that rewrite takes the lock, so it never runs beneath a server, which is told to stop first.
 */
export async function openAccounts(target: StoreTarget, opts: { create?: boolean } = {}): Promise<AccountBackends> {
  if (target.databaseUrl !== undefined) {
    const { openPostgresAccounts } = await import('./store/postgres/backends.ts');
    return openPostgresAccounts(target.databaseUrl);
  }
  const { dataDir } = target;
  if (opts.create !== true && !existsSync(join(dataDir, STORE_FILE))) {
    const hint = opts.create === false ? ', or pass --new-store to make one there' : '';
    throw new StartError(`no store in ${dataDir} (no ${STORE_FILE}): check --data-dir (env DATA_DIR)${hint}`);
  }
  checkDataDir(dataDir);
  const lock = storeNeedsUpgrade(dataDir) ? lockDataDir(dataDir, 'oddsbase keys') : undefined;
  let db: SqliteDatabase;
  try {
    db = openSqlite(dataDir);
  } finally {
    lock?.release();
  }
  return {
    keys: new SqliteKeyStore(db),
    adminTokens: new SqliteAdminTokenStore(db),
    counterStore: new SqliteCounterStore(db),
    getMeta: async (key) => readSqliteMeta(db, key),
    close: async () => {
      db.close();
    },
  };
}

/** Streams meter without response headers: the usage action reports the figures instead. */
const NO_HEADERS = { header: () => undefined };

/** The delays of every plan, so that each has its view before its first request. */
const PLAN_DELAYS = TIERS.map((t) => entitlementsFor(t).delaySeconds);

/**
 * The composition root: builds the backends and services from the configuration and wires them,
 * without listening. The server, the CLI and the tests all start here.
 */
export async function compose(config: ServeConfig, opts: ComposeOptions = {}): Promise<Services> {
  // Before the heap grows: every server composed here, a benchmark's or a test's too, ticks as `serve` does.
  holdTickShape();
  const now = opts.now ?? Date.now;
  const onError = opts.onError ?? ((err: unknown) => process.stderr.write(`oddsbase: ${String(err)}\n`));
  const limits = config.limits;
  const redis = await redisAdapters(config, now, onError);
  const backends = await openBackends(config, onError, redis?.bus, opts.onWriterWait);
  const { store, bus } = backends;
  const counters: SavedCounters = redis?.counters ?? new MemoryCounters(now);
  // Usage survives restarts and is visible to `oddsbase keys show`.
  counters.restore(await backends.counterStore.load(now()));
  if (redis) await redisReady(config, redis, store);
  if (opts.prepareStore) {
    await opts.prepareStore(store).catch(async (err: unknown) => {
      await Promise.all([bus.close(), counters.close(), redis?.slots.close(), store.close()]);
      throw err;
    });
  }
  const api = config.role === 'api';
  // A cluster's writer (and its standby, which takes over) and an ingest API take batches at rate.
  if (config.role === 'writer' || config.feed === 'ingest') growHeapForWrites();
  // A writer that found another holding the writer lock serves as an API node meanwhile (a hot
  // standby), and takes over from the board it holds once the lock is its own.
  const standby = backends.writerLock;
  const follows = api || standby !== undefined;
  // Only the writer begins or marks the log; a node that follows reads what the writer began.
  const restored = follows ? undefined : (await beginFreshLog(store, now()), await beginEpochIfRestored(store));
  if (follows) await logBegun(store, opts.onLogWait);
  const gaps = await epochGaps(store);
  const metrics = new Metrics();
  const writerFeed =
    config.feed === 'ingest'
      ? 'ingest'
      : config.feed === 'upstream'
        ? 'upstream'
        : config.replay
          ? 'replay'
          : config.simulator
            ? 'simulator'
            : 'none';
  const readiness = new Readiness(follows ? 'bus' : writerFeed, standby ? 'standby' : config.role);
  const board = new Board();
  const floor = new LogFloor(await store.retained());
  const views = new DelayedViews(board, PLAN_DELAYS, {
    now,
    tickMs: limits.delayTickMs,
    maxEntries: limits.delayMaxEntries,
  });
  // A writer of an embedded store saves its board at a clean shutdown and takes it back at the next
  // start if the log has not moved (src/board/board-snapshot.ts). Not an API node: it follows a
  // database that moves on while it is down. The plain twin of the speed wall always loads.
  const snapshotFile =
    api || config.databaseUrl !== undefined || PLAIN ? undefined : join(config.dataDir, SNAPSHOT_FILE);
  const version = snapshotFile === undefined ? undefined : codeVersion();
  let snapshot: LoadedLog | undefined;
  if (snapshotFile !== undefined && version !== undefined) {
    if (existsSync(snapshotFile)) opts.onSnapshot?.('taking back the board saved at the last shutdown');
    const outcome = await loadBoardSnapshot(snapshotFile, {
      board,
      views,
      store,
      version,
      archivedSinceMs: now() - ARCHIVED_HEADERS_MS,
      idsAbove: gaps.at(-1)?.to,
    });
    if (outcome && 'loaded' in outcome) {
      snapshot = outcome.loaded;
      opts.onSnapshot?.(`took back the board saved at the last shutdown (${(outcome.bytes / MB).toFixed(1)} MB)`);
    } else if (outcome) opts.onSnapshot?.(`${outcome.skipped}: loading the store`);
  }
  const storeRows = snapshot ? 0 : await store.rowCount();
  if (!snapshot) opts.onLoading?.(estimateLoad(storeRows, parseLoadTiming(await store.getMeta(LOAD_MS_META))));
  const loadStarted = performance.now();
  // What the longest delay still hides was committed within it: the views learn it again.
  const replaySinceMs = now() - Math.max(...PLAN_DELAYS) * 1000;
  let ledger: Ledger | undefined;
  let retention: Retention | undefined;
  let follower: Follower | undefined;
  let retentionFollower: RetentionFollower | undefined;
  let probe: StoreProbe | undefined;
  // What the change feed and the streams read: a following node's follower hands them the batches
  // it applied, without gaps; a writer's ledger publishes on the bus itself.
  const local: Bus = follows ? new MemoryBus(onError) : bus;
  const ledgerOptions: LedgerOptions = {
    now,
    maxQueuedBatches: limits.ledgerMaxQueuedBatches,
    observe: views.observe,
    replaySinceMs,
    onCommit: (rows, seconds, failed) => {
      metrics.commit(rows, seconds, failed);
      readiness.commit(rows, seconds, failed);
    },
    floor,
    idsAbove: gaps.at(-1)?.to,
  };
  const startRetention = (writer: Ledger): Retention => {
    const r = new Retention(
      writer,
      {
        days: limits.retentionDays,
        boardKeepHours: limits.boardKeepHours,
        batchRows: limits.retentionBatchRows,
        now,
      },
      onError,
    );
    r.start(limits.retentionTickMs);
    return r;
  };
  if (follows) {
    follower = await Follower.open(store, board, bus, local, {
      replaySinceMs,
      observe: views.observe,
      archivedSinceMs: now() - ARCHIVED_HEADERS_MS,
      idsAbove: gaps.at(-1)?.to,
      onError,
      onApplied: (committedMs) => metrics.followed(now() - committedMs),
      onProgress: opts.onLoadProgress,
    });
    readiness.following(() => follower!.state);
    probe = new StoreProbe(() => store.lastRowId(), STORE_PROBE_MS);
    readiness.watchStore(probe.problem);
    metrics.watchFollowing();
    retentionFollower = new RetentionFollower(store, board, floor, {
      everyMs: RETENTION_FOLLOW_MS,
      headersKeepMs: ARCHIVED_HEADERS_MS,
      now,
      onError,
    });
    await retentionFollower.sync();
    retentionFollower.start();
  } else {
    if (backends.writeProblem) readiness.watchStore(backends.writeProblem);
    ledger = await Ledger.open(store, board, bus, {
      ...ledgerOptions,
      onLoadProgress: opts.onLoadProgress,
      ...(snapshot ? { loaded: snapshot } : {}),
    });
    // The estimate of the next load is the store's: a snapshot's time says nothing of it.
    if (!snapshot) {
      const ms = Math.round(performance.now() - loadStarted);
      await store.setMeta(LOAD_MS_META, JSON.stringify({ ms, rows: storeRows }));
    }
    retention = startRetention(ledger);
  }
  const position = () => (ledger ?? follower!).position;
  const feed = await ChangeFeed.open(store, local, board.head, {
    now,
    floor,
    payloadBytes: limits.deltaMemoryKb * 1024,
    epoch: position().epoch,
    gaps,
  });
  const saver = new CounterSaver(counters, backends.counterStore, now);
  const saveCounters = () => saver.save();
  const saving = setInterval(() => void saveCounters().catch(onError), limits.counterSaveMs);
  saving.unref();
  const access = new AccessControl(counters, now, metrics.refused, redis?.bursts);
  const logging = config.logLevel !== 'silent';
  const auth = new Authenticator(backends.keys, limits.authCacheMs, now);
  const failedKeys = new FailedKeyChecks(FAILED_KEY_CHECK_LIMITS, now, redis?.counters);
  const sessions = new Sessions(auth, limits.sessionTtlMs, limits.authCacheMs, now);
  const proxies = new TrustedProxies(config.trustProxy);
  // One scheduler of turns for the HTTP builds and the streams' writes, so each gets its share of a pass.
  const turns = makeTurns();
  const app = await buildApp({
    turns,
    views,
    catalog: board.catalog,
    seasonRecords: board.seasonRecords,
    feed,
    history: backends.history,
    games: store,
    archive: new ArchivedEvents(store),
    floor,
    auth,
    access: opts.withoutAccess ? undefined : access,
    keyHeader: config.keyHeader,
    failedKeys,
    sessions,
    trustProxy: proxies,
    corsOrigins: config.corsOrigins,
    ...(config.tls ? { tls: { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } } : {}),
    log: logging
      ? {
          level: config.logLevel,
          stream: opts.logStream ?? (await logDestination(config.logPretty)),
          requests: config.accessLog,
        }
      : undefined,
    version: packageVersion(),
    cacheBytes: limits.cacheMb * MB,
    sendTimeoutMs: limits.sendTimeoutMs,
    sendBudgetBytes: limits.sendBudgetMb * MB,
  });
  metrics.watch({
    position,
    backlog: () => ledger?.backlog ?? 0,
    oldestId: async () => (await feed.oldestCursor()) + 1,
    bytesOnDisk: backends.bytesOnDisk,
    events: () => board.events.size,
    views,
  });
  const slots: ConnectionSlots = redis?.slots ?? new LocalConnectionSlots();
  const streams = new StreamHub(
    {
      bus: local,
      view: views.forDelay(0),
      catalog: board.catalog,
      feed,
      readPlays: (eventId, from, to) => store.readPlays(eventId, from, to),
      position,
      now,
      meter: opts.withoutAccess ? undefined : (account, points) => access.meter(account, points, NO_HEADERS),
      recheck: opts.withoutAccess ? undefined : (account) => streamDenial(auth, access, account),
      recheckSession: opts.withoutAccess ? undefined : (session) => sessionDenial(sessions, session),
      metrics: metrics.streams,
      turns,
      slots,
    },
    {
      heartbeatMs: limits.streamHeartbeatMs,
      queueMessages: limits.streamQueueMessages,
      highWaterBytes: limits.streamHighWaterKb * 1024,
      resumeMaxChanges: limits.streamResumeMaxChanges,
      resumeMaxConcurrent: limits.streamResumeMaxConcurrent,
      resumeMaxPerKey: limits.streamResumeMaxPerKey,
      accessCheckMs: limits.streamAccessCheckMs,
      backlogGraceMs: limits.streamBacklogGraceMs,
    },
  );
  const tokens = new StreamTokens(limits.streamTokenTtlMs, now);
  noteUpgradeClients(app.server, proxies);
  attachStreams(app.server, {
    hub: streams,
    slots,
    auth,
    access: opts.withoutAccess ? undefined : access,
    keyHeader: config.keyHeader,
    tokens,
    failedKeys,
    sessions,
    transport: config.streamTransport,
    markets: board.catalog,
    onError: (err) => app.log.error({ err }, 'stream failure'),
  });
  streamTokenRoute(app, tokens);
  streamPlainGetRoutes(app);
  asyncApiRoute(app, { version: packageVersion(), keyHeader: config.keyHeader });
  metrics.watchStreams({
    connections: () => streams.connectionCount,
    subscriptions: () => streams.index.size,
    queued: () => streams.queuedMessages(),
  });
  if (redis) metrics.watchBus(() => redis.bus.dropped);
  healthRoutes(app, readiness);
  if (!opts.withoutAccess) {
    await sessionRoutes(app, {
      auth,
      access,
      sessions,
      failedKeys,
      loopbackOnly: isLoopback(config.host),
      demoKey: () => store.getMeta(DEMO_KEY_CLEAR_META),
    });
  }
  await webPageRoutes(app, config.webDir ?? join(packageRoot(), 'web', 'dist'));
  // An API node has no ledger to feed (checkRole refuses --feed ingest there); a standby's refuses
  // batches as busy (503, Retry-After) until it takes over.
  if (config.feed === 'ingest' && !api) {
    const known = {
      eventOf: (eventId: string) => board.events.get(eventId)?.info,
      hasFuturesBoard: (eventId: string) => board.futuresState(eventId) !== undefined,
      sport: (sportId: number) => board.catalog.sport(sportId),
      hasBook: (affiliateId: number) => board.catalog.book(affiliateId) !== undefined,
      stats: board.catalog,
      homeSportIds: (teamId: number) => board.catalog.homeSportIds(teamId),
    };
    await app.register(ingestRoutes, {
      feed: new IngestFeed(
        {
          applyNamed: (b) =>
            ledger
              ? ledger.applyNamed(b)
              : Promise.reject(new LedgerBusyError('this server is the standby writer: another one writes now')),
        },
        known,
        now,
      ),
      tokens: new AdminTokens(backends.adminTokens, limits.authCacheMs, now),
      bodyLimit: limits.ingestBodyMb * MB,
      maxInFlight: limits.ledgerMaxQueuedBatches,
    });
  }
  // A standby writer makes its mirror once it takes over: a mirror needs the ledger it feeds.
  const makeMirror = (writer: Ledger, up: UpstreamConfig): UpstreamMirror => {
    const budget = new DailyBudget(up.budget, now);
    // Every answer's points are counted, whichever consumer or read asked for it.
    const metered =
      (beside: boolean): typeof fetch =>
      async (input, init) => {
        const res = await fetch(input, init);
        const points = Number(res.headers.get('x-datapoints') ?? 0);
        if (Number.isFinite(points) && points > 0) budget.count(points, beside);
        return res;
      };
    // Every request of the mirror (its consumers, extra reads, catalog, box and season reads) goes
    // through one pacer; the season reads, beside the follow, give way to the rest.
    const pacer = new RequestPacer();
    const client = (fetch: typeof globalThis.fetch) => new OddsbaseClient({ baseUrl: up.url, key: up.key, fetch });
    const m = new UpstreamMirror({
      client: client(pacer.wrap(metered(false))),
      seasonClient: client(pacer.wrap(metered(true), { yielding: true })),
      ledger: writer,
      board,
      budget,
      pollMs: up.pollMs,
      catalogMs: up.catalogMs,
      seasonMs: up.seasonMs,
      mode: up.mode,
      WebSocket: WebSocket as unknown as WebSocketConstructor,
      now,
      onError: (err) => app.log.warn({ err: err instanceof Error ? err : new Error(String(err)) }, 'upstream'),
      log: (level, line) => app.log[level](line),
    });
    readiness.watchUpstream(() =>
      m.state.caughtUp ? m.state.problem : (m.state.problem ?? 'catching up with the upstream'),
    );
    metrics.watchUpstream(() => m.state, now);
    return m;
  };
  let mirror = config.upstream && ledger ? makeMirror(ledger, config.upstream) : undefined;
  if (config.metrics.token !== undefined) metricsRoute(app, metrics, config.metrics.token);
  const summary =
    logging && !config.accessLog
      ? new AccessSummary((fields, message) => app.log.info(fields, message), limits.accessSummaryMs)
      : undefined;
  observeRequests(app, metrics, summary);
  if (restored) {
    app.log.warn(
      {
        epoch: restored.epoch,
        previous_epoch: restored.previous,
        copy_head_id: restored.gap.from,
        head_id: position().id,
      },
      "a restored backup: the change log continues under a new epoch, its ids past a gap after the copy's head",
    );
  }
  // The streams and the feed are subscribed: the batches held since the load go on to them.
  await follower?.start();
  let closed = false;
  const takeover = standby?.then(async () => {
    // No one else commits now: the store's head and highest ids are final until this one commits.
    await retentionFollower!.stop();
    await follower!.handOver(
      await retried(
        () => store.lastRowId(),
        onError,
        () => closed,
      ),
    );
    const log = await retried(
      async (): Promise<LoadedLog> => {
        await retentionFollower!.sync();
        const highest = await store.highestIds();
        return {
          epoch: (await store.getMeta(EPOCH_META)) ?? follower!.position.epoch,
          headCommittedMs: (await store.committedMsAt(board.head)) ?? 0,
          maxMarketId: highest.marketId,
          maxPriceId: highest.priceId,
        };
      },
      onError,
      () => closed,
    );
    if (closed) throw new Error('the server closed before it took over as the writer');
    ledger = Ledger.continuing(store, board, bus, ledgerOptions, log);
    // The cluster bus hands a batch to its own listeners as it publishes it: the change feed and the
    // streams go on reading `local`.
    bus.subscribe((batch) => local.publish(batch));
    probe!.stop();
    readiness.becameWriter(writerFeed, backends.writeProblem ?? (() => undefined));
    retention = startRetention(ledger);
    if (config.upstream) mirror = makeMirror(ledger, config.upstream);
  });
  const none = (what: string) => new Error(`an API node (--role api) has no ${what}: it follows the writer`);
  return {
    ...backends,
    config,
    board,
    views,
    get ledger(): Ledger {
      if (!ledger) throw none('ledger');
      return ledger;
    },
    get retention(): Retention {
      if (!retention) throw none('retention');
      return retention;
    },
    follower,
    get mirror(): UpstreamMirror | undefined {
      return mirror;
    },
    ...(takeover ? { takeover } : {}),
    feed,
    counters,
    access,
    auth,
    app,
    metrics,
    streams,
    readiness,
    skippedIds: gaps.reduce((n, g) => n + g.to - g.from, 0),
    saveCounters,
    fill: (run) => feed.fill(() => store.fill(run)),
    async close() {
      if (closed) return;
      closed = true;
      streams.close();
      await closeApp(app, limits.shutdownGraceMs);
      summary?.close();
      clearInterval(saving);
      follower?.stop();
      await retentionFollower?.stop();
      probe?.stop();
      await retention?.stop();
      await ledger?.settled();
      if (ledger && snapshotFile !== undefined && version !== undefined) {
        const saved = await saveBoardSnapshot(snapshotFile, {
          board,
          views,
          log: ledger.counters,
          lastRowId: await store.lastRowId(),
          version,
        }).catch((err: unknown) => `the board snapshot was not written: ${String(err)}`);
        opts.onSnapshot?.(
          typeof saved === 'number' ? `board saved for the next start (${(saved / MB).toFixed(1)} MB)` : saved,
        );
      }
      await saveCounters();
      await counters.close();
      await slots.close();
      feed.close();
      views.close();
      if (local !== bus) await local.close();
      await bus.close();
      await store.close();
    },
  };
}

/**
 * `read`, tried again with backoff until it succeeds (a standby taking over while PostgreSQL
 * blinks), or until `stopped` (the server closing).
 */
async function retried<T>(read: () => Promise<T>, onError: (err: unknown) => void, stopped: () => boolean): Promise<T> {
  for (let waitMs = 500; ; waitMs = Math.min(waitMs * 2, 5000)) {
    try {
      return await read();
    } catch (err) {
      if (stopped()) throw err;
      onError(err);
      await new Promise((r) => setTimeout(r, waitMs));
    }
  }
}

/** How often a following node reads what the writer's retention archived and compacted. */
const RETENTION_FOLLOW_MS = 5000;

/** How often an API node reads its store to say on /readyz whether it answers. */
const STORE_PROBE_MS = 2000;

/** How often an API node looks again for the log a writer begins. */
const LOG_WAIT_MS = 500;

/**
 * Resolves once the store's log has an epoch: an API node started on an empty database before any
 * writer waits for one to begin it, since beginning it is a write.
 */
async function logBegun(store: Store, onWait?: () => void): Promise<void> {
  if ((await store.getMeta(EPOCH_META)) !== undefined) return;
  onWait?.();
  while ((await store.getMeta(EPOCH_META)) === undefined) await new Promise((r) => setTimeout(r, LOG_WAIT_MS));
}

// Redis (--redis-url): the bus and the counters shared between nodes.

interface RedisAdapters {
  bus: RedisBus;
  counters: RedisCounters;
  /** The per-second ceiling counted by every node together. */
  bursts: SharedBursts;
  /** WebSocket connections per key counted by every node together. */
  slots: RedisConnectionSlots;
}

/** The adapters that go through Redis when `--redis-url` is given; none without it. */
async function redisAdapters(
  config: ServeConfig,
  now: () => number,
  onError: (err: unknown) => void,
): Promise<RedisAdapters | undefined> {
  if (!config.redisUrl) return undefined;
  // Loaded only here: importing ioredis would add 0.2-0.4 s to every embedded start.
  const { Redis } = await import('ioredis');
  const url = config.redisUrl;
  // Per-second windows and failed key checks are exchanged, never saved: they are gone, or not
  // worth keeping, before a restart could use them.
  const unsaved = (key: string) => isBurstCounter(key) || isFailedKeyCounter(key);
  const gaps = counterSendGaps(config.limits.counterSendGapMs, config.limits.counterFarSendGapMs);
  const counters = new RedisCounters({
    url,
    driver: Redis,
    now,
    onError,
    unsaved,
    sendGapMs: gaps.nearMs,
    farSendGapMs: gaps.farMs,
  });
  return {
    bus: new RedisBus({ url, driver: Redis, onError }),
    counters,
    bursts: new SharedBursts(counters),
    slots: new RedisConnectionSlots({ url, driver: Redis, onError }),
  };
}

/** How long a start waits for Redis before it fails. */
const REDIS_START_MS = 10_000;

/**
 * Waits until the bus reads the stream and the counters are exchanged: a node that cannot reach
 * Redis stops its start rather than serve limits and streams as if it were alone.
 */
async function redisReady(config: ServeConfig, redis: RedisAdapters, store: Store): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<'late'>((resolve) => (timer = setTimeout(() => resolve('late'), REDIS_START_MS)));
  const outcome = await Promise.race([Promise.all([redis.bus.ready(), redis.counters.ready()]), late]);
  clearTimeout(timer);
  if (outcome === 'late') {
    await Promise.all([redis.bus.close(), redis.counters.close(), redis.slots.close(), store.close()]);
    const url = new URL(config.redisUrl!);
    throw new Error(`Redis at ${url.host} did not answer within ${REDIS_START_MS / 1000} s (--redis-url)`);
  }
}
