import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { generateAdminToken, newAdminTokenRecord } from '../../src/access/admin-tokens.ts';
import { generateKey, type NewKeyOptions, newKeyRecord } from '../../src/access/keys.ts';
import type { Tier } from '../../src/catalog/tiers.ts';
import { epochGaps } from '../../src/ops/backup.ts';
import type { Store } from '../../src/store/store.ts';
import { type Limits, resolveServeConfig, type ServeConfig } from '../../src/config.ts';
import { type RunningServer, startServer } from '../../src/server.ts';
import { startApiTopology, TEST_TOPOLOGY } from './api-topology.ts';
import { dropTestDatabase, testDatabaseUrl } from './test-store.ts';

export interface TestServer {
  server: RunningServer;
  url: string;
  dataDir: string;
  /** An Enterprise key with a burst ceiling no test reaches. */
  key: string;
  said: string[];
  /** The server's log lines, when started with a `logLevel`. */
  logs: string[];
  newKey(tier: Tier, opts?: NewKeyOptions): Promise<string>;
  get(path: string, headers?: Record<string, string>): Promise<{ status: number; body: any; headers: Headers }>;
  close(opts?: { keepData?: boolean }): Promise<void>;
}

/**
 * The id a log's first change follows: a new log's ids begin past a base read off the clock
 * (`beginFreshLog`), so a test counts rows from it rather than from 0.
 */
export async function logBase(store: Pick<Store, 'getMeta'>): Promise<number> {
  return (await epochGaps(store)).find((g) => g.from === 0)?.to ?? 0;
}

/** Starts the real server on a random loopback port with its own data directory. */
export async function startTestServer(
  opts: {
    /**
     * --feed: `ingest` serves POST /admin/v1/ingest (and runs no simulator); `replay` with
     * `replayFile` replays a recording (its --speed is `speed`).
     */
    feed?: string;
    simulator?: boolean;
    replayFile?: string;
    /** `--feed upstream`: the server mirrored, its key (written to a key file), poll, budget, mode, catalog and season intervals. */
    upstream?: {
      url: string;
      key: string;
      pollMs?: number;
      budget?: number;
      mode?: string;
      catalogMs?: number;
      seasonMs?: number;
    };
    speed?: number | string;
    seed?: number;
    /** The sport ids the simulator plays (every sport by default): a fill of a few is much shorter. */
    sports?: number[];
    dataDir?: string;
    keyHeader?: string;
    now?: () => number;
    logLevel?: ServeConfig['logLevel'];
    /** A log line per request, not only the per-minute summary. */
    accessLog?: boolean;
    /** Limits other than the defaults (send timeout, budgets, ...). */
    limits?: Partial<Limits>;
    /** `proxy`: WebSocket upgrades need X-Forwarded-Proto: https. */
    streamTransport?: ServeConfig['streamTransport'];
    /** PEM files: the server speaks HTTPS and wss://. */
    tls?: { certFile: string; keyFile: string };
    /** --trust-proxy: addresses or CIDRs, comma-separated. */
    trustProxy?: string;
    /** --cors-origins: origins, comma-separated, or *. */
    corsOrigins?: string;
    /** --redis-url: the bus and counters shared with other servers on that Redis. */
    redisUrl?: string;
    /** --database-url: a PostgreSQL store shared with other servers, instead of the data directory's. */
    databaseUrl?: string;
    /** --role: `writer` and `api` need `databaseUrl` and `redisUrl`. */
    role?: ServeConfig['role'];
    /** The address listened on (127.0.0.1 by default). */
    host?: string;
    /** The port listened on (any free one by default): a restart that clients find where they left it. */
    port?: number;
    /** The built page served at `/` (the package's web/dist by default). */
    webDir?: string;
  } = {},
): Promise<TestServer> {
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'oddsbase-test-'));
  const said: string[] = [];
  const logs: string[] = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logs.push(String(chunk));
      done();
    },
  });
  let upstreamKeyFile: string | undefined;
  if (opts.upstream) {
    upstreamKeyFile = join(dataDir, 'upstream.key');
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(upstreamKeyFile, `${opts.upstream.key}\n`, { mode: 0o600 });
  }
  const config = resolveServeConfig(
    {
      port: opts.port ?? 0,
      host: opts.host ?? '127.0.0.1',
      dataDir,
      databaseUrl: opts.databaseUrl ?? (await testDatabaseUrl(dataDir)),
      feed: opts.feed ?? (opts.upstream ? 'upstream' : undefined),
      simulator: opts.simulator ?? false,
      replayFile: opts.replayFile,
      upstreamUrl: opts.upstream?.url,
      upstreamKeyFile,
      upstreamPollMs: opts.upstream?.pollMs,
      upstreamCatalogMs: opts.upstream?.catalogMs,
      upstreamSeasonMs: opts.upstream?.seasonMs,
      upstreamBudget: opts.upstream?.budget,
      upstreamMode: opts.upstream?.mode,
      seed: opts.seed ?? 7,
      speed: opts.speed ?? 1,
      sports: opts.sports,
      keyHeader: opts.keyHeader,
      logLevel: opts.logLevel ?? 'silent',
      accessLog: opts.accessLog,
      // Any free port: tests run servers side by side, and beside a developer's own.
      metricsPort: 0,
      streamTransport: opts.streamTransport,
      tlsCertFile: opts.tls?.certFile,
      tlsKeyFile: opts.tls?.keyFile,
      trustProxy: opts.trustProxy,
      corsOrigins: opts.corsOrigins,
      redisUrl: opts.redisUrl,
      role: opts.role,
      webDir: opts.webDir,
      limits: opts.limits,
    },
    {},
  );
  const startOpts = { say: (l: string) => said.push(l), terminal: true, now: opts.now, logStream };
  // The api topology for a server as `npm start` runs it: a feed of its own, a role or other
  // servers' URLs ask for what they name.
  const asApiNode =
    TEST_TOPOLOGY === 'api' &&
    config.databaseUrl !== undefined &&
    opts.feed === undefined &&
    opts.role === undefined &&
    opts.redisUrl === undefined &&
    opts.databaseUrl === undefined;
  const server = asApiNode ? await startApiTopology(config, startOpts) : await startServer(config, startOpts);
  const newKey = async (tier: Tier, opts: NewKeyOptions = {}) => {
    const k = generateKey();
    await server.keys.insert(newKeyRecord(k, tier, { label: 'test', ...opts }));
    return k;
  };
  // Tests poll far faster than any plan's burst ceiling: their own key is Enterprise with a high one.
  const key = await newKey('enterprise', { custom: JSON.stringify({ burstPerSecond: 1_000_000 }) });
  const url = server.url.replace('localhost', '127.0.0.1');
  return {
    server,
    url,
    dataDir,
    key,
    said,
    logs,
    newKey,
    async get(path, headers = { 'X-Service-Key': key }) {
      const res = await fetch(url + path, { headers });
      const text = await res.text();
      let body: unknown = text;
      try {
        body = JSON.parse(text);
      } catch {
        // not JSON: the raw text is returned for the assertion to show
      }
      return { status: res.status, body, headers: res.headers };
    },
    async close(closeOpts = {}) {
      await server.close();
      if (!closeOpts.keepData) {
        rmSync(dataDir, { recursive: true, force: true });
        await dropTestDatabase(dataDir);
      }
    },
  };
}

/** A new admin token stored on `server`: what POST /admin/v1/ingest takes as its bearer. */
export async function adminToken(server: TestServer): Promise<string> {
  const token = generateAdminToken();
  await server.server.services.adminTokens.insert(newAdminTokenRecord(token, { label: 'test' }));
  return token;
}

/** A test server fed through POST /admin/v1/ingest (`--feed ingest`), and an admin token of its own. */
export type IngestServer = TestServer & { token: string };

/** Starts a test server on `--feed ingest` and stores an admin token for it. */
export async function startIngestServer(
  opts: Omit<NonNullable<Parameters<typeof startTestServer>[0]>, 'feed'> = {},
): Promise<IngestServer> {
  const s = await startTestServer({ ...opts, feed: 'ingest' });
  return Object.assign(s, { token: await adminToken(s) });
}
