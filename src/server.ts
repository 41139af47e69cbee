import type { FastifyInstance } from 'fastify';
import type { MemoryCounters } from './access/counters/memory-counters.ts';
import { generateKey, type KeyStore, newKeyRecord } from './access/keys.ts';
import type { Board } from './board/board.ts';
import { compose, type Services } from './compose.ts';
import type { ServeConfig } from './config.ts';
import type { Simulator } from './feeds/simulator/index.ts';
import type { Ledger } from './ledger/ledger.ts';
import { listenMetrics } from './ops/metrics-endpoint.ts';
import { compactHeap } from './ops/compact-heap.ts';
import { closeApp } from './ops/shutdown.ts';
import { holdTickShape } from './ops/tick-shape.ts';
import { lockDataDir } from './store/data-dir-lock.ts';
import { preflight } from './ops/preflight.ts';

export interface RunningServer {
  app: FastifyInstance;
  board: Board;
  ledger: Ledger;
  keys: KeyStore;
  counters: MemoryCounters;
  services: Services;
  simulator?: Simulator;
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
}

const DEMO_KEY_META = 'demo_key_issued_at';
/**
 * The demo key in clear: `oddsbase keys demo` shows it again to whoever can read the data
 * directory (never over the API). Every other key is kept only as a hash.
 */
export const DEMO_KEY_CLEAR_META = 'demo_key';
const SEED_META = 'simulator_seed';

/**
 * Builds the services (compose), fills the simulator's history, then listens. The demo key is
 * created on the first start of an empty store only; the store remembers that it did.
 */
export async function startServer(config: ServeConfig, opts: StartOptions = {}): Promise<RunningServer> {
  const say = opts.say ?? ((line: string) => process.stderr.write(`${line}\n`));
  const terminal = opts.terminal ?? process.stderr.isTTY === true;
  const now = opts.now ?? Date.now;
  await preflight(config);
  holdTickShape();
  // One writer per data directory: a second server would race this one's change ids.
  const lock = lockDataDir(config.dataDir);
  const services = await compose(config, {
    now,
    onError: (err) => say(`error: ${String(err)}`),
    logStream: opts.logStream,
  });
  const { store, keys, board, ledger, app } = services;

  // Made and shown before any long work: a start stopped during the fill has shown it already.
  if ((await store.getMeta(DEMO_KEY_META)) === undefined && (await keys.count()) === 0) {
    const demoKey = generateKey();
    await keys.insert(newKeyRecord(demoKey, 'ultra', { label: 'demo', v1: true }));
    await store.setMeta(DEMO_KEY_CLEAR_META, demoKey);
    await store.setMeta(DEMO_KEY_META, new Date().toISOString());
    const base = `http://localhost:${config.port}`;
    say('');
    say('A demo key (Ultra tier, with V1) was created for this data directory:');
    say(terminal ? `  ${demoKey}` : '  (not shown: standard error is not a terminal)');
    say(`Print it again with: oddsbase keys demo --data-dir ${config.dataDir}`);
    say('Make others with:    oddsbase keys create --tier ultra --v1');
    if (terminal) say(`Try it: curl -H '${config.keyHeader}: ${demoKey}' ${base}/api/v2/sports/4/events/$(date -u +%F)`);
    say('');
  }

  let simulator: Simulator | undefined;
  if (config.simulator) {
    const storedSeed = await store.getMeta(SEED_META);
    let seed = config.seed;
    if (storedSeed === undefined) await store.setMeta(SEED_META, String(seed));
    else if (Number(storedSeed) !== seed) {
      say(`note: this data directory was filled with seed ${storedSeed}; continuing with it (not ${seed})`);
      seed = Number(storedSeed);
    }
    // Loaded only when wanted: a --no-simulator server never loads the simulator's code.
    const { Simulator } = await import('./feeds/simulator/index.ts');
    const sim = new Simulator({ seed, speed: config.speed, sink: ledger, state: board, now, log: say });
    simulator = sim;
    const started = Date.now();
    let lastShown = 0;
    await services.fill(() =>
      sim.backfill((done, total) => {
        const pct = Math.floor((done / Math.max(total, 1)) * 100);
        if (pct >= lastShown + 10 || done === total) {
          lastShown = pct;
          say(`simulator: filling history ${pct}% (${board.head} changes)`);
        }
      }),
    );
    say(`simulator: ready in ${((Date.now() - started) / 1000).toFixed(1)} s, ${board.events.size} events`);
  }

  const packed = await compactHeap();
  if (packed) {
    const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(0);
    say(`heap compacted: ${mb(packed.beforeBytes)} -> ${mb(packed.afterBytes)} MB in ${packed.ms.toFixed(0)} ms`);
  }

  const metricsPort = config.metrics.port;
  const metricsListener =
    metricsPort === undefined
      ? undefined
      : await listenMetrics(services.metrics, { ...config.metrics, port: metricsPort }).catch(async (err: unknown) => {
          await services.close();
          lock.release();
          throw err;
        });
  await app.listen({ port: config.port, host: config.host }).catch(async (err: unknown) => {
    await metricsListener?.close();
    await services.close();
    lock.release();
    throw err;
  });
  const address = app.server.address();
  const port = typeof address === 'object' && address ? address.port : config.port;
  const shownHost = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  const url = `${config.tls ? 'https' : 'http'}://${shownHost}:${port}`;
  simulator?.start();

  say(`oddsbase listening on ${url} (docs: ${url}/docs, metrics: ${metricsListener?.url ?? 'off, --metrics-port turns them on'})`);

  let closed = false;
  return {
    app,
    board,
    ledger,
    keys,
    counters: services.counters,
    services,
    simulator,
    url,
    metricsUrl: metricsListener?.url,
    async close() {
      if (closed) return;
      closed = true;
      // WebSocket clients are told first: an upgraded socket is no request the grace time waits for.
      services.streams.close();
      await closeApp(app, config.limits.shutdownGraceMs);
      await simulator?.stop();
      await metricsListener?.close();
      await services.close();
      lock.release();
    },
  };
}
