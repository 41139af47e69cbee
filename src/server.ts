import type { FastifyInstance } from 'fastify';
import type { SavedCounters } from './access/counters/counters.ts';
import { generateKey, newKeyRecord } from './access/keys.ts';
import { DEMO_KEY_CLEAR_META, type KeyStore } from './store/keys.ts';
import type { Board } from './board/board.ts';
import { readFileSync } from 'node:fs';
import { compose, type Services } from './compose.ts';
import type { ServeConfig } from './config.ts';
import { simulatorCatalog } from './catalog/simulator-catalog.ts';
import { writableStats } from './catalog/stat-table.ts';
import type { FillPosition, PastFillPosition, Simulator, SimulatorOptions } from './feeds/simulator/index.ts';
import { listenStarting } from './ops/starting.ts';
import { loadingLine, loadProgress } from './ops/load-estimate.ts';
import type { Ledger } from './ledger/ledger.ts';
import { listenMetrics } from './ops/metrics-endpoint.ts';
import { type Compaction, compactWhenIdle } from './ops/compact-heap.ts';
import { closeApp } from './ops/shutdown.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import { preflight } from './ops/preflight.ts';
import { openRecording, type OpenRecording } from './feeds/replay/recording-file.ts';
import { ReplayFeed } from './feeds/replay/replay-feed.ts';
import { adoptRecordedLog, finishRecordedLog } from './ops/recorded-log.ts';

export interface RunningServer {
  app: FastifyInstance;
  board: Board;
  /** The writer of the log; reading it on an API node (`--role api`) throws. */
  ledger: Ledger;
  keys: KeyStore;
  counters: SavedCounters;
  services: Services;
  simulator?: Simulator;
  /** The replay of `--feed replay`; its `done` settles when the recording has been read through. */
  replay?: ReplayFeed;
  /** The address the server listens on, e.g. http://127.0.0.1:8080. */
  url: string;
  /** Where the metrics listener serves `/metrics`, e.g. http://127.0.0.1:9464/metrics; undefined when off. */
  metricsUrl: string | undefined;
  /**
   * Stops accepting, lets requests in flight finish (within `shutdownGraceMs`), stops the feed
   * (a step in flight commits), then closes the services and the store.
   */
  close(): Promise<void>;
}

export interface StartOptions {
  /** Lines meant for the person who started the server (demo key, progress); standard error by default. */
  say?: (line: string) => void;
  /**
   * Whether `say` reaches a person at a terminal: only then is the demo key itself shown (logs
   * and files collect what a pipe carries). By default, whether standard error is a terminal.
   */
  terminal?: boolean;
  /** ms clock for the simulator, commits, delays and limits; tests inject one. */
  now?: () => number;
  /** Where the structured log goes instead of stdout (tests read it). */
  logStream?: NodeJS.WritableStream;
  /** Stops the start (a signal): the fill stops between two steps, and `StartStopped` is thrown. */
  signal?: AbortSignal;
}

const DEMO_KEY_META = 'demo_key_issued_at';
const SEED_META = 'simulator_seed';
/** Where a first history fill stands (FillPosition), until it is complete: a later start goes on with it. */
const FILL_META = 'history_fill';
/**
 * Where the background part of a split first fill stands (PastFillPosition), until it is
 * complete: a later start goes on with it once it serves.
 */
const PAST_FILL_META = 'history_fill_past';

/** A start stopped by a signal before it listened; everything it opened is closed. */
export class StartStopped extends Error {
  constructor() {
    super('the start was stopped');
  }
}

/**
 * Builds the services (compose), fills the simulator's history, then listens. The demo key is
 * created on the first start of an empty store only; the store remembers that it did.
 */
export async function startServer(config: ServeConfig, opts: StartOptions = {}): Promise<RunningServer> {
  const say = opts.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const terminal = opts.terminal ?? process.stderr.isTTY === true;
  const now = opts.now ?? Date.now;
  await preflight(config);
  // One writer per data directory: a second server would race this one's change ids. A PostgreSQL
  // store enforces its one writer itself (an advisory lock, src/store/postgres/pg-writer.ts).
  const lock = config.databaseUrl === undefined ? lockDataDir(config.dataDir) : undefined;
  const startedAt = performance.now();
  const seconds = () => ((performance.now() - startedAt) / 1000).toFixed(1);
  const early = await listenStarting({
    host: config.host,
    port: config.port,
    ...(config.tls ? { tls: { cert: readFileSync(config.tls.certFile), key: readFileSync(config.tls.keyFile) } } : {}),
  }).catch((err: unknown) => {
    lock?.release();
    throw err;
  });
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `${config.tls ? 'https' : 'http'}://${shownHost}:${early.port}`;
  const step = (text: string) => {
    early.step = text;
    say(`oddsbase: ${text}`);
  };
  say(`oddsbase starting on ${url}: /healthz answers now, /readyz and the API once loaded`);
  step('opening the store');
  // A start stopped (a signal) or failed leaves nothing behind: the store closed, its write-ahead
  // log folded in, the port and the lock freed.
  const abandon = async (err: unknown, opened?: Services): Promise<never> => {
    await early.close();
    await opened?.close();
    lock?.release();
    throw err;
  };
  // A replay's recording is opened first: its header decides how the store's log begins.
  let recording: OpenRecording | undefined;
  if (config.replay) recording = await openRecording(config.replay.file).catch(abandon);
  const services = await compose(config, {
    now,
    ...(recording
      ? {
          prepareStore: async (s) => {
            // A restart goes on with the replay where the store ends; another log is refused.
            await adoptRecordedLog(s, recording.header, recording.firstId, {
              name: config.databaseUrl === undefined ? `the store in ${config.dataDir}` : 'the database',
              append: true,
              appendOption: '',
            });
          },
        }
      : {}),
    onError: (err) => say(`error: ${String(err)}`),
    onWriterWait: () => step('waiting for the writer lock: another server writes to this database'),
    onLogWait: () => step('waiting for a writer to begin the change log of this empty database'),
    logStream: opts.logStream,
    onLoading: (estimate) => step(loadingLine(estimate)),
    onLoadProgress: loadProgress(step, config.limits.loadProgressMs),
    onSnapshot: step,
  }).catch((err: unknown) => {
    recording?.close();
    return abandon(err);
  });
  const { store, keys, board, app } = services;
  // An API node writes nothing to the log: the writer makes the demo key and runs the feed. A
  // standby runs the feed once it has taken over.
  const writes = config.role !== 'api' && services.takeover === undefined;
  // Ids begin past a base read off the clock (a new log) or jump (a restore): count the changes.
  const changes = () => board.head - services.skippedIds;
  say(`oddsbase: store loaded in ${seconds()} s (${changes()} changes, ${board.events.size} events)`);

  // The simulator writes the catalog it plays with (the ledger writes only the records that
  // changed); a store without catalog rows, made before the catalog was rows, takes the same
  // records so that what it holds keeps its names (an ingest feed's own records extend or replace
  // them; a mirror starts from them too, which an oddsbase upstream shares). A replay brings the
  // recorded catalog. A stats record that would list an id another stored sport lists (a store
  // from before stat ids were unique) is left out, so the start goes on with that sport's stored one.
  const seeded = config.feed === 'simulator' || config.feed === 'ingest' || config.feed === 'upstream';
  if (writes && (config.simulator || (seeded && board.catalog.size === 0))) {
    const { records, heldBack } = writableStats(simulatorCatalog(), board.catalog);
    for (const { sportId, clash } of heldBack) {
      say(
        `oddsbase: sport ${sportId} keeps its stored stats, not the simulator's: stat id ${clash.statId} is listed by sport ${clash.sportId} too (stat ids are unique across sports)`,
      );
    }
    await services.ledger
      .apply({ at: new Date(now()).toISOString(), updates: records.map((record) => ({ kind: 'catalog', record })) })
      .catch((err: unknown) => abandon(err, services));
  }

  // Made and shown before any long work: a start stopped during the fill has shown it already.
  if (writes && (await store.getMeta(DEMO_KEY_META)) === undefined && (await keys.count()) === 0) {
    const demoKey = generateKey();
    await keys.insert(newKeyRecord(demoKey, 'ultra', { label: 'demo', v1: true }));
    await store.setMeta(DEMO_KEY_CLEAR_META, demoKey);
    await store.setMeta(DEMO_KEY_META, new Date().toISOString());
    say('');
    say('A demo key (Ultra tier, with V1) was created for this data directory:');
    say(terminal ? `  ${demoKey}` : '  (not shown: standard error is not a terminal)');
    say(
      `Print it again with: oddsbase keys demo ${config.databaseUrl === undefined ? `--data-dir ${config.dataDir}` : '--database-url …'}`,
    );
    say('Make others with:    oddsbase keys create --tier ultra --v1');
    if (terminal) say(`Try it: curl -H '${config.keyHeader}: ${demoKey}' ${url}/api/v2/sports/4/events/$(date -u +%F)`);
    say('');
  }

  // The heap is compacted once, when the server is idle: after a load or fill before it listens
  // (a restart), or after the background part of a first fill, which makes most of the garbage.
  const idle = new AbortController();
  let lastRequestMs = 0;
  /** When a request last began, as far as is known: set once the server listens. */
  let lastRequest = () => lastRequestMs;
  let simulator: Simulator | undefined;
  let pastFill: PastFill | undefined;
  /** The background part of a first fill over `past`, run by `sim`: the heap is compacted once it ends. */
  const pastFillOf = (sim: Simulator, past: PastFillPosition) =>
    new PastFill(sim, past, store, services.readiness, say, () =>
      compactAndSay(
        say,
        compactWhenIdle(() => lastRequest(), idle.signal),
      ),
    );
  if (writes && config.simulator && !opts.signal?.aborted) {
    // Loaded only when wanted: a --no-simulator server never loads the simulator's code.
    const { pastSplit, Simulator } = await import('./feeds/simulator/index.ts');
    const simOptions = await simulatorOptions(services, config, now, say);
    const sim = new Simulator(simOptions);
    simulator = sim;
    const resume = await storedFill(store);
    let past = await storedPastFill(store);
    // A first fill splits: today's games and later ones now, the days before in the background.
    const split = resume ? resume.split : (past?.split ?? (board.events.size === 0 ? pastSplit(now()) : undefined));
    let kept = resume;
    const keep = (position: FillPosition) => {
      kept = position;
      return store.setMeta(FILL_META, JSON.stringify(position));
    };
    const fillStarted = performance.now();
    let lastShown = -1;
    // The pace is measured from the fill's start, or for a resumed fill from its first progress
    // report: it starts part of the way in.
    let paceFrom: { done: number; at: number } | undefined = resume ? undefined : { done: 0, at: fillStarted };
    step(
      resume
        ? 'going on with the history fill a stopped start left (measuring the time left)'
        : split !== undefined && board.events.size === 0
          ? "filling today's history, the days before follow once it serves (measuring the time left)"
          : 'bringing the games from where the store left them up to now (measuring the time left)',
    );
    const complete = await services
      .fill(() =>
        sim.backfill(
          (done, total) => {
            const pct = Math.floor((done / Math.max(total, 1)) * 100);
            if (pct < lastShown + 10 && done !== total) return;
            lastShown = pct;
            paceFrom ??= { done, at: performance.now() };
            step(`filling history ${pct}% (${changes()} changes, ${timeLeft(paceFrom, done, total)})`);
          },
          { signal: opts.signal, resume, split, onStart: keep, onStep: keep },
        ),
      )
      .catch((err: unknown) => abandon(err, services));
    if (!complete) return abandon(new StartStopped(), services);
    if (split !== undefined && past === undefined) {
      // The same window as the part just filled: its day, its history's start.
      past = { today: kept?.today ?? Math.floor(now() / 86_400_000), split };
      await store.setMeta(PAST_FILL_META, JSON.stringify(past));
    }
    await store.setMeta(FILL_META, '');
    say(
      `oddsbase: history ready in ${((performance.now() - fillStarted) / 1000).toFixed(1)} s, ${board.events.size} events`,
    );
    if (past) pastFill = pastFillOf(new Simulator({ ...simOptions, part: 'past' }), past);
  }
  if (opts.signal?.aborted) return abandon(new StartStopped(), services);

  const metricsPort = config.metrics.port;
  const metricsListener =
    metricsPort === undefined
      ? undefined
      : await listenMetrics(services.metrics, { ...config.metrics, port: metricsPort }).catch((err: unknown) =>
          abandon(err, services),
        );
  // The port passes from the starting listener to the server: a connection made in between is
  // refused, which a client or probe retries.
  await early.close();
  await app.listen({ port: early.port, host: config.host }).catch(async (err: unknown) => {
    await metricsListener?.close();
    return abandon(err, services);
  });
  simulator?.start();
  services.mirror?.start();
  let replay: ReplayFeed | undefined;
  if (writes && recording && config.replay) {
    const file = config.replay.file;
    const header = recording.header;
    const feed = new ReplayFeed({
      rows: recording.rows,
      sink: services.ledger,
      speed: config.replay.speed,
      now,
      onProgress: (rows, lastId) => {
        services.readiness.history = `replaying ${file}: ${rows} changes, up to ${lastId} of ${header.head_id}`;
      },
    });
    replay = feed;
    services.readiness.history = `replaying ${file}`;
    // Rows keep their recorded commit times, which retention could judge old before their events'
    // later rows arrive: it waits for the replay to end.
    await services.retention.stop();
    feed.start();
    feed.done
      .then(
        async (result) => {
          if (!result.complete) return;
          await finishRecordedLog(store, header);
          services.retention.start(config.limits.retentionTickMs);
          services.readiness.history = 'complete';
          say(`oddsbase: replayed ${file}: ${result.rows} changes (${result.skipped} already in the store)`);
        },
        (err: unknown) => {
          services.readiness.history = `the replay stopped: ${String(err)}`;
          say(`error: the replay of ${file} stopped: ${String(err)}`);
        },
      )
      .catch((err: unknown) => say(`error: after the replay of ${file}: ${String(err)}`));
  }
  // Requests are counted by the app's one 'request' listener (a second one would cost every request
  // a copy of the listener list and a clock read): a change of the count since the last look is a
  // request begun since, so the time of the last one is known to within a check of compactWhenIdle.
  let seenBegun = app.requestsBegun;
  lastRequestMs = performance.now();
  lastRequest = () => {
    if (app.requestsBegun !== seenBegun) {
      seenBegun = app.requestsBegun;
      lastRequestMs = performance.now();
    }
    return lastRequestMs;
  };
  app.server.on('upgrade', () => {
    lastRequestMs = performance.now();
  });

  say(
    `oddsbase listening on ${url} in ${seconds()} s (docs: ${url}/docs, metrics: ${metricsListener?.url ?? 'off, --metrics-port turns them on'})`,
  );
  if (pastFill) pastFill.start();
  else
    void compactAndSay(
      say,
      compactWhenIdle(() => lastRequest(), idle.signal),
    );

  let closed = false;
  // A standby serves as an API node until it takes over; then it runs the feed from the committed
  // state, as a restart would, but while serving.
  const simulatorCode = services.takeover && config.simulator ? import('./feeds/simulator/index.ts') : undefined;
  let writing = false;
  const tookOver = services.takeover?.then(async () => {
    writing = true;
    say(`oddsbase: took over as the writer at change ${board.head}, from the board it served`);
    if (services.mirror && !closed) {
      services.mirror.start();
      say(`oddsbase: the mirror of ${config.upstream!.url} goes on as the writer's feed`);
    }
    if (!simulatorCode) return;
    const { Simulator } = await simulatorCode;
    const simOptions = await simulatorOptions(services, config, now, say);
    const sim = new Simulator(simOptions);
    const resume = await storedFill(store);
    const past = await storedPastFill(store);
    // Brings the games from where the writer that died left them up to now, step by committed step.
    const complete = await sim.backfill(undefined, {
      signal: idle.signal,
      resume,
      split: resume?.split ?? past?.split,
      onStep: (position) => store.setMeta(FILL_META, JSON.stringify(position)),
    });
    if (!complete || closed) return;
    await store.setMeta(FILL_META, '');
    simulator = sim;
    sim.start();
    say(`oddsbase: the simulator goes on as the writer's feed, at change ${board.head}`);
    if (past) {
      pastFill = pastFillOf(new Simulator({ ...simOptions, part: 'past' }), past);
      pastFill.start();
    }
  });
  tookOver?.catch((err: unknown) => {
    if (!closed) say(`error: this standby did not take over as the writer: ${String(err)}`);
  });
  return {
    app,
    board,
    get ledger() {
      return services.ledger;
    },
    keys,
    counters: services.counters,
    services,
    get simulator() {
      return simulator;
    },
    ...(replay ? { replay } : {}),
    url,
    metricsUrl: metricsListener?.url,
    async close() {
      if (closed) return;
      closed = true;
      idle.abort();
      // A takeover past the lock stops its fill at the abort; one waiting for the lock ends with the store.
      if (writing) await tookOver?.catch(() => undefined);
      // WebSocket clients are told first: an upgraded socket is no request the grace time waits for.
      services.streams.close();
      await closeApp(app, config.limits.shutdownGraceMs);
      await pastFill?.stop();
      await simulator?.stop();
      await services.mirror?.stop();
      await replay?.stop();
      recording?.close();
      await metricsListener?.close();
      await services.close();
      await tookOver?.catch(() => undefined);
      lock?.release();
    },
  };
}

/** The simulator's options on this store: the seed it was filled with (kept in its meta), or the configured one. */
async function simulatorOptions(
  services: Services,
  config: ServeConfig,
  now: () => number,
  say: (line: string) => void,
): Promise<SimulatorOptions> {
  const { store } = services;
  const storedSeed = await store.getMeta(SEED_META);
  let seed = config.seed;
  if (storedSeed === undefined) await store.setMeta(SEED_META, String(seed));
  else if (Number(storedSeed) !== seed) {
    say(`note: this data directory was filled with seed ${storedSeed}; continuing with it (not ${seed})`);
    seed = Number(storedSeed);
  }
  return {
    seed,
    speed: config.speed,
    sink: services.ledger,
    state: services.board,
    now,
    log: say,
    sportIds: config.sports,
  };
}

// Empty once complete (the Store has no delete of a meta key).
const parseMeta = <T>(stored: string | undefined) => (stored ? (JSON.parse(stored) as T) : undefined);

/** Where a stopped first fill stands, if one is. */
async function storedFill(store: Services['store']): Promise<FillPosition | undefined> {
  return parseMeta<FillPosition>(await store.getMeta(FILL_META));
}

/** Where the background part of a first fill stands, if it is not complete. */
async function storedPastFill(store: Services['store']): Promise<PastFillPosition | undefined> {
  return parseMeta<PastFillPosition>(await store.getMeta(PAST_FILL_META));
}

/** One compacting collection (src/ops/compact-heap.ts), said with its figures once it is done. */
async function compactAndSay(say: (line: string) => void, compaction: Promise<Compaction | undefined>): Promise<void> {
  const packed = await compaction;
  if (!packed) return;
  const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(0);
  say(
    `oddsbase: heap compacted: ${mb(packed.beforeBytes)} -> ${mb(packed.afterBytes)} MB in ${packed.ms.toFixed(0)} ms`,
  );
}

/** `about N s left` at the pace measured since `from`, or that the pace is not known yet. */
function timeLeft(from: { done: number; at: number }, done: number, total: number): string {
  const rate = (done - from.done) / Math.max(1, performance.now() - from.at);
  return rate > 0 ? `about ${Math.ceil((total - done) / rate / 1000)} s left` : 'measuring the time left';
}

/**
 * The background part of a split first fill: the games before today, played while the server
 * serves, through the same ledger as the live feed, so their rows take ids after every id already
 * handed out. Where it stands is kept with its steps (`PAST_FILL_META`), and `/readyz` and the
 * progress lines say it; a stop between two steps leaves it for the next start to go on with.
 */
class PastFill {
  private readonly stopping = new AbortController();
  private running: Promise<void> | undefined;

  constructor(
    private readonly sim: Simulator,
    private readonly position: PastFillPosition,
    private readonly store: { setMeta(key: string, value: string): Promise<void> },
    private readonly readiness: { history: string },
    private readonly say: (line: string) => void,
    /** Compacts the heap once the server is idle (the fill makes most of its garbage). */
    private readonly compact: () => Promise<void>,
  ) {}

  start(): void {
    const started = performance.now();
    const before = new Date(this.position.split).toISOString().slice(0, 10);
    let pace: { done: number; at: number } | undefined;
    let lastShown = -1;
    const show = (text: string) => {
      this.readiness.history = text;
      this.say(`oddsbase: ${text}`);
    };
    show(
      `filling the history before ${before} in the background${this.position.from === undefined ? '' : ', going on where a stopped start left it'}`,
    );
    this.running = this.sim
      .fillPast(
        this.position,
        (done, total) => {
          const pct = Math.floor((done / Math.max(total, 1)) * 100);
          if (pct < lastShown + 10 && done !== total) return;
          lastShown = pct;
          // The first report starts the pace: a resumed part starts part of the way in.
          pace ??= { done, at: performance.now() };
          if (done !== total)
            show(`filling the history before ${before} in the background ${pct}% (${timeLeft(pace, done, total)})`);
        },
        { signal: this.stopping.signal, onStep: (p) => this.store.setMeta(PAST_FILL_META, JSON.stringify(p)) },
      )
      .then(async (complete) => {
        if (!complete) return;
        await this.store.setMeta(PAST_FILL_META, '');
        this.readiness.history = 'complete';
        this.say(
          `oddsbase: the history before ${before} is filled, in ${((performance.now() - started) / 1000).toFixed(1)} s`,
        );
        // Once, while serving and idle: a pause of 0.5-2.5 s against tens of MB resident for good.
        await this.compact();
      })
      .catch((err: unknown) => {
        // The next start goes on from the last whole step.
        this.readiness.history = `the background fill stopped: ${String(err)}`;
        this.say(`error: the background history fill stopped: ${String(err)}`);
      });
  }

  /** Stops between two steps and resolves once the last step's batches are committed. */
  async stop(): Promise<void> {
    this.stopping.abort();
    await this.running;
  }
}
