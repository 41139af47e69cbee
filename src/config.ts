import { sportProfile } from './catalog/sports.ts';
import { existsSync, readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import { isAddressOrCidr } from './access/client-address.ts';

export const MB = 1024 * 1024;

// The defaults of limits that the modules using them also fall back to when built without a
// configuration (tests, benchmarks): kept here so that the configuration imports none of them.

/**
 * Heap bytes one kept change takes (its entry, its slot in the event's list, and what it replaced),
 * measured: 240 bytes for a price change, with room for the larger ones (new lines, scores).
 */
export const DELAY_ENTRY_BYTES = 300;

/**
 * The default bound on kept changes for a heap of `heapLimitBytes`: a tenth of the heap, so that an
 * ingest far beyond any real feed moves the views on early instead of exhausting the heap (500,000
 * changes took about 120 MB, beyond what `npm start`'s 288 MB cap leaves beside the board).
 */
export function delayEntriesFor(heapLimitBytes: number): number {
  return Math.max(1000, Math.min(500_000, Math.floor(heapLimitBytes / 10 / DELAY_ENTRY_BYTES)));
}

/** The default bound for this process's heap limit (`--max-old-space-size`). */
export function defaultDelayEntries(): number {
  return delayEntriesFor(getHeapStatistics().heap_size_limit);
}

/**
 * The serialised rows kept by default: about 20,000 price rows, minutes of the live simulator's
 * changes, which a polling client is well within. Older cursors read from the store. The bytes sit
 * outside the heap, in the resident set as they are: 16 MB was a twentieth of the 400 MB a month's
 * server may use.
 */
export const DEFAULT_PAYLOAD_BYTES = 8 * 1024 * 1024;

/**
 * The caches' shared budget by default. A full budget that churns costs about one and a half times
 * its size in RSS (garbage between collections, allocator slack): with 32 MB, `npm start`'s server
 * peaked at 390 MB under 20,000 distinct filters (bench/bounded.ts), with 64 MB it passed 400 MB.
 */
export const DEFAULT_CACHE_BYTES = 32 * 1024 * 1024;

export const DEFAULT_SEND_TIMEOUT_MS = 30_000;
/** As much as the caches may hold: together they keep `npm start`'s server near 400 MB at worst. */
export const DEFAULT_SEND_BUDGET_BYTES = 32 * 1024 * 1024;

/** The server's configuration: validated once at start, with defaults; a bad value stops the start. */
export interface ServeConfig {
  port: number;
  host: string;
  dataDir: string;
  /**
   * A PostgreSQL database (`postgres://…`, env DATABASE_URL) holds the store instead of the SQLite
   * file of `dataDir`; undefined: the embedded store.
   */
  databaseUrl: string | undefined;
  /**
   * What feeds the ledger: the built-in simulator, `POST /admin/v1/ingest` (src/feeds/ingest), or a
   * recording (`replay`, src/feeds/replay).
   * `upstream` mirrors another server with this interface (src/feeds/upstream).
   */
  feed: Feed;
  /** Whether the simulator runs: the simulator feed, unless `--no-simulator` (stored data only). */
  simulator: boolean;
  /** `--feed upstream`: the server mirrored; undefined otherwise. */
  upstream?: UpstreamConfig;
  /** `--feed replay`: the recording the server replays through its ledger; undefined otherwise. */
  replay: ReplayConfig | undefined;
  seed: number;
  speed: number;
  /** The sport ids the simulator plays; undefined: every sport of the catalog. */
  sports: readonly number[] | undefined;
  /** Header that carries the API key (compared case-insensitively). */
  keyHeader: string;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** Human-readable log lines for a terminal instead of JSON. */
  logPretty: boolean;
  /** A log line per request; without it, a summary line per `accessSummaryMs`. */
  accessLog: boolean;
  metrics: MetricsConfig;
  /**
   * Plain ws:// on the WebSocket endpoints: `direct` accepts it (the local development default),
   * `proxy` accepts only upgrades marked `X-Forwarded-Proto: https` by a trusted TLS-terminating proxy.
   */
  streamTransport: 'direct' | 'proxy';
  /**
   * PEM files of a certificate and its key: the API port then speaks HTTPS, and the WebSocket
   * endpoints wss:// only (TLS_CERT_FILE, TLS_KEY_FILE; both or neither).
   */
  tls?: { certFile: string; keyFile: string };
  /**
   * Addresses and CIDR ranges of reverse proxies whose X-Forwarded-For is believed: the client is
   * the right-most address of the chain that is not one of them. Empty: the socket's address.
   */
  trustProxy: string[];
  /** Origins whose browsers may call the REST routes (CORS); `*` for any; empty: CORS off. */
  corsOrigins: string[];
  /**
   * `redis://` or `rediss://` URL of the Redis that carries the bus and the shared counters between
   * nodes (REDIS_URL); undefined: the in-process bus and counters of one embedded server.
   */
  redisUrl: string | undefined;
  /**
   * What this process does (docs/deploy.md): `all`, the ledger, the feed and the API in one process
   * (the embedded server); `writer`, the same on PostgreSQL and Redis, as the one writer of a
   * cluster or its standby; `api`, the API alone, its board loaded from PostgreSQL and kept current
   * from the Redis bus. `writer` and `api` need both URLs (src/ops/preflight.ts, `checkRole`).
   */
  role: Role;
  /**
   * The built odds screen (`npm run build:web`), served at `/` (WEB_DIR); undefined: the package's
   * own web/dist.
   */
  webDir: string | undefined;
  /** Timers and limits that would otherwise be written at their call sites. */
  limits: Limits;
}

/** Where `/metrics` is served, and who may read it. */
export interface MetricsConfig {
  /** The metrics listener's address: loopback unless a token protects it. */
  host: string;
  /**
   * The metrics listener's port (0: any free port); undefined: no listener. Off unless asked, so
   * that a second server on one host, or another program on 9464, never stops a start.
   */
  port: number | undefined;
  /**
   * With a token, every `/metrics` request needs `Authorization: Bearer <token>`, and the API port
   * serves `/metrics` too; without one, only the metrics listener serves it, on loopback.
   */
  token?: string;
}

export interface Limits {
  /** How long an authenticated key or admin token is trusted without a store lookup (a revoked one stops within it). */
  authCacheMs: number;
  /** How often the delayed views move on. */
  delayTickMs: number;
  /** Most recent changes the delayed views keep (by default, what a tenth of the heap holds). */
  delayMaxEntries: number;
  /** How often usage counters are saved to the store. */
  counterSaveMs: number;
  /**
   * With Redis: the least time between two sends of a node's counter changes (what gathers in it
   * goes in one) while one of them is near its limit (src/perf/send-gap.ts), so that other nodes
   * see such a change at most this much later.
   */
  counterSendGapMs: number;
  /** The same while none is near its limit (at least `counterSendGapMs`). */
  counterFarSendGapMs: number;
  /**
   * How often the store's write-ahead log is checkpointed on a thread of its own (0: inside the
   * writer's commits, SQLite's default, whose fsyncs then stall requests).
   */
  checkpointMs: number;
  /** Batches that may wait for the ledger before a feed is told to slow down. */
  ledgerMaxQueuedBatches: number;
  /** How long a shutdown waits for requests in flight before it closes their connections. */
  shutdownGraceMs: number;
  /** How often the access summary line is logged (when requests are not logged one by one). */
  accessSummaryMs: number;
  /** Memory every cache of the HTTP layer together may hold, in MB. */
  cacheMb: number;
  /** Recent markets delta rows kept in memory, in KB; a page that starts further back is read from the store. */
  deltaMemoryKb: number;
  /** How long a response may sit unread before its connection is destroyed. */
  sendTimeoutMs: number;
  /** Unsent response bytes all connections together may hold, in MB; a quarter of it per connection. */
  sendBudgetMb: number;
  /** WebSocket heartbeat interval (spec: 15 s). */
  streamHeartbeatMs: number;
  /** Messages a stream subscription may have waiting (spec: 1024); past it, drop, conflate or close. */
  streamQueueMessages: number;
  /** Unsent bytes in a WebSocket's socket past which its queue waits for the socket to drain, in KB. */
  streamHighWaterKb: number;
  /** Most changes a stream resume replays; further behind, the client takes a snapshot. */
  streamResumeMaxChanges: number;
  /** Stream resumes replaying at once in the process; past it a resume is answered `resume_busy`. */
  streamResumeMaxConcurrent: number;
  /** Stream resumes of one key replaying at once. */
  streamResumeMaxPerKey: number;
  /** How often open streams' keys are checked again: revocation, expiry and caps close them within it. */
  streamAccessCheckMs: number;
  /** How long a WebSocket may stay backed up before a queue past streamQueueMessages is the client's. */
  streamBacklogGraceMs: number;
  /** How long a stream token (POST /api/v2/ws/token) may be redeemed. */
  streamTokenTtlMs: number;
  /** How long a page's session (POST /session) lasts; the key's revocation or expiry ends it sooner. */
  sessionTtlMs: number;
  /**
   * Days of the change log kept whole (by commit time); older rows are compacted to what is kept
   * for good (store/retention.ts). 0 keeps everything.
   */
  retentionDays: number;
  /** Hours a finished event stays on the in-memory board after its last change; then it is archived. */
  boardKeepHours: number;
  /** How often retention takes one step (one compaction transaction, and the archiving of finished events). */
  retentionTickMs: number;
  /** Most change ids one compaction step looks at (the size of its transaction). */
  retentionBatchRows: number;
  /** Largest body POST /admin/v1/ingest reads (--feed ingest), in MB; a larger one is answered 413. */
  ingestBodyMb: number;
  /** How often a start's load of the store says how far it is (its progress lines). */
  loadProgressMs: number;
}

export const DEFAULT_LIMITS: Limits = {
  authCacheMs: 2000,
  delayTickMs: 250,
  delayMaxEntries: defaultDelayEntries(),
  counterSaveMs: 1000,
  counterSendGapMs: 20,
  counterFarSendGapMs: 250,
  checkpointMs: 1000,
  ledgerMaxQueuedBatches: 64,
  shutdownGraceMs: 10_000,
  accessSummaryMs: 60_000,
  cacheMb: DEFAULT_CACHE_BYTES / MB,
  deltaMemoryKb: DEFAULT_PAYLOAD_BYTES / 1024,
  sendTimeoutMs: DEFAULT_SEND_TIMEOUT_MS,
  sendBudgetMb: DEFAULT_SEND_BUDGET_BYTES / MB,
  streamHeartbeatMs: 15_000,
  streamQueueMessages: 1024,
  streamHighWaterKb: 256,
  streamResumeMaxChanges: 50_000,
  streamResumeMaxConcurrent: 16,
  streamResumeMaxPerKey: 4,
  streamAccessCheckMs: 1000,
  streamBacklogGraceMs: 1000,
  streamTokenTtlMs: 60_000,
  sessionTtlMs: 12 * 3_600_000,
  // One day: the simulator's data directory then stays under 2 GB (docs/operations.md, sizing).
  retentionDays: 1,
  boardKeepHours: 36,
  retentionTickMs: 250,
  retentionBatchRows: 100,
  // A batch of 10,000 prices is about 3 MB of NDJSON.
  ingestBodyMb: 16,
  loadProgressMs: 5000,
};

export class ConfigError extends Error {}

export const FEEDS = ['simulator', 'ingest', 'replay', 'upstream'] as const;
export type Feed = (typeof FEEDS)[number];

/** `--feed`: one of FEEDS. */
function resolveFeed(raw: string | undefined): Feed {
  if (raw === undefined || raw === '') return 'simulator';
  if (!(FEEDS as readonly string[]).includes(raw)) {
    throw new ConfigError(`--feed must be one of ${FEEDS.join(', ')}, got '${raw}'`);
  }
  return raw as Feed;
}

/** `--sports`: known sport ids of the catalog; none given (or empty) is every sport. */
function resolveSports(raw: string | readonly number[] | undefined): readonly number[] | undefined {
  if (raw === undefined || raw === '') return undefined;
  const parts = typeof raw === 'string' ? raw.split(',').map((p) => p.trim()) : raw.map(String);
  const ids = parts.map(Number);
  const bad = parts.filter((p, i) => !/^\d+$/.test(p) || !sportProfile(ids[i]!));
  if (bad.length > 0 || ids.length === 0) {
    throw new ConfigError(
      `--sports must be sport ids of the catalog, comma-separated (GET /api/v2/sports lists them), got '${bad.join(',') || String(raw)}'`,
    );
  }
  return [...new Set(ids)];
}

const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;

function int(name: string, raw: string | number | undefined, fallback: number, min: number, max: number): number {
  if (raw === undefined || raw === '') return fallback;
  const n = typeof raw === 'number' ? raw : Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new ConfigError(`${name} must be an integer from ${min} to ${max}, got '${raw}'`);
  }
  return n;
}

/** A recording replayed as the server's feed (src/feeds/replay). */
export interface ReplayConfig {
  file: string;
  /** The recorded timing scaled by this; 0 replays as fast as the ledger commits. */
  speed: number;
}

/**
 * A replay's `--speed`: a number from 0, where 0 (or `max`) means as fast as the store commits, with
 * no waits; 1 is the recorded pace.
 */
export function parseReplaySpeed(raw: string | number | undefined): number {
  if (raw === undefined || raw === '') return 1;
  if (raw === 'max') return 0;
  const speed = typeof raw === 'string' && raw.trim() === '' ? Number.NaN : Number(raw);
  if (!Number.isFinite(speed) || speed < 0) {
    throw new ConfigError(`--speed must be a number from 0 (0 or max: as fast as possible), got '${raw}'`);
  }
  return speed;
}

/** `--feed upstream`: the server this one mirrors (src/feeds/upstream, docs/feeds.md). */
export interface UpstreamConfig {
  /** Its base URL (http or https), without a trailing slash. */
  url: string;
  /** Its API key: read from `--upstream-key-file` or UPSTREAM_KEY, never from the command line. */
  key: string;
  /** Data points the mirror may spend upstream per UTC day; 0: no budget of its own. */
  budget: number;
  /** How often the deltas are polled, in ms. */
  pollMs: number;
  /** How often the upstream's catalog is read again, in ms. */
  catalogMs: number;
  /** How often a team whose game changed has its season read again, in ms. */
  seasonMs: number;
  /** How prices are followed: the upstream's stream, polls of the markets delta, or the stream where allowed. */
  mode: UpstreamMode;
}

/** `--upstream-mode` (docs/feeds.md, "Following"). */
export const UPSTREAM_MODES = ['auto', 'stream', 'poll'] as const;
export type UpstreamMode = (typeof UPSTREAM_MODES)[number];

function upstreamMode(raw: string | undefined): UpstreamMode {
  if (raw === undefined || raw === '') return 'auto';
  if (!(UPSTREAM_MODES as readonly string[]).includes(raw)) {
    throw new ConfigError(`--upstream-mode must be one of ${UPSTREAM_MODES.join(', ')}, got '${raw}'`);
  }
  return raw as UpstreamMode;
}

/** The upstream's options, checked together; undefined unless `--feed upstream`. */
function resolveUpstream(feed: Feed, input: ServeInput, env: NodeJS.ProcessEnv): UpstreamConfig | undefined {
  const url = input.upstreamUrl ?? env.UPSTREAM_URL;
  const keyFile = input.upstreamKeyFile ?? env.UPSTREAM_KEY_FILE;
  const mode = input.upstreamMode ?? env.UPSTREAM_MODE;
  if (feed !== 'upstream') {
    if (url || keyFile || mode)
      throw new ConfigError(
        '--upstream-url, --upstream-key-file and --upstream-mode are read only with --feed upstream',
      );
    return undefined;
  }
  if (!url) throw new ConfigError('--feed upstream needs the server to mirror: --upstream-url URL');
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new ConfigError(`--upstream-url must be an http:// or https:// URL, got '${url}'`);
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new ConfigError(`--upstream-url must be an http:// or https:// URL, got '${url}'`);
  }
  let key: string | undefined;
  if (keyFile) {
    try {
      key = readFileSync(keyFile, 'utf8').trim();
    } catch (err) {
      throw new ConfigError(`--upstream-key-file cannot be read: ${(err as Error).message}`);
    }
  } else key = env.UPSTREAM_KEY?.trim();
  if (!key) {
    throw new ConfigError(
      '--feed upstream needs the upstream key: --upstream-key-file FILE or the UPSTREAM_KEY environment variable',
    );
  }
  return {
    url: url.replace(/\/+$/, ''),
    key,
    budget: int('--upstream-budget', input.upstreamBudget ?? env.UPSTREAM_BUDGET, 0, 0, Number.MAX_SAFE_INTEGER),
    pollMs: int('--upstream-poll-ms', input.upstreamPollMs ?? env.UPSTREAM_POLL_MS, 2000, 100, 3_600_000),
    catalogMs: int(
      '--upstream-catalog-ms',
      input.upstreamCatalogMs ?? env.UPSTREAM_CATALOG_MS,
      300_000,
      1000,
      86_400_000,
    ),
    seasonMs: int('--upstream-season-ms', input.upstreamSeasonMs ?? env.UPSTREAM_SEASON_MS, 60_000, 1000, 86_400_000),
    mode: upstreamMode(mode),
  };
}

export interface ServeInput {
  port?: string | number;
  host?: string;
  dataDir?: string;
  databaseUrl?: string;
  /** One of FEEDS: `simulator` (the default), `ingest`, or `replay` with `replayFile` (env FEED). */
  feed?: string;
  simulator?: boolean;
  /** `--replay-file` (env REPLAY_FILE). */
  replayFile?: string;
  /** `--upstream-url` (env UPSTREAM_URL). */
  upstreamUrl?: string;
  /** `--upstream-key-file` (env UPSTREAM_KEY_FILE); else the key is env UPSTREAM_KEY. */
  upstreamKeyFile?: string;
  /** `--upstream-budget`: data points a UTC day (env UPSTREAM_BUDGET). */
  upstreamBudget?: string | number;
  /** `--upstream-poll-ms` (env UPSTREAM_POLL_MS). */
  upstreamPollMs?: string | number;
  /** `--upstream-catalog-ms` (env UPSTREAM_CATALOG_MS). */
  upstreamCatalogMs?: string | number;
  /** `--upstream-season-ms` (env UPSTREAM_SEASON_MS). */
  upstreamSeasonMs?: string | number;
  /** `--upstream-mode`: auto, stream or poll (env UPSTREAM_MODE). */
  upstreamMode?: string;
  seed?: string | number;
  speed?: string | number;
  /** Comma-separated sport ids, or a list. */
  sports?: string | readonly number[];
  keyHeader?: string;
  logLevel?: string;
  logPretty?: boolean;
  accessLog?: boolean;
  metricsHost?: string;
  metricsPort?: string | number;
  metricsToken?: string;
  streamTransport?: string;
  tlsCertFile?: string;
  tlsKeyFile?: string;
  /** Comma-separated addresses or CIDRs (env TRUST_PROXY). */
  trustProxy?: string;
  /** Comma-separated origins, or `*` (env CORS_ORIGINS). */
  corsOrigins?: string;
  /** env REDIS_URL. */
  redisUrl?: string;
  /** env ROLE. */
  role?: string;
  /** env WEB_DIR. */
  webDir?: string;
  limits?: Partial<Limits>;
}

const LOOPBACK = /^(127\.\d{1,3}\.\d{1,3}\.\d{1,3}|::1|localhost|::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3})$/;

/** Whether a listening address, or a client's, is this machine's own (loopback). */
export function isLoopback(host: string): boolean {
  return LOOPBACK.test(host);
}

/**
 * Command-line values win over the environment (PORT, HOST, DATA_DIR, DATABASE_URL, KEY_HEADER,
 * LOG_LEVEL, METRICS_HOST, METRICS_PORT, METRICS_TOKEN, REDIS_URL, ROLE, WEB_DIR).
 */
export function resolveServeConfig(input: ServeInput, env: NodeJS.ProcessEnv = process.env): ServeConfig {
  const feed = resolveFeed(input.feed ?? env.FEED);
  const replayFile = input.replayFile ?? env.REPLAY_FILE;
  let replay: ReplayConfig | undefined;
  if (feed === 'replay') {
    if (replayFile === undefined || replayFile === '') {
      throw new ConfigError('--feed replay needs the recording to replay: --replay-file FILE');
    }
    replay = { file: replayFile, speed: parseReplaySpeed(input.speed ?? env.SIM_SPEED) };
  } else if (replayFile !== undefined && replayFile !== '') {
    throw new ConfigError('--replay-file is read only with --feed replay');
  }
  // With a replay, --speed is the replay's (above); the simulator does not run.
  const speedRaw = replay ? undefined : (input.speed ?? env.SIM_SPEED);
  const speed = speedRaw === undefined || speedRaw === '' ? 1 : Number(speedRaw);
  if (!Number.isFinite(speed) || speed <= 0 || speed > 10_000) {
    throw new ConfigError(`--speed must be a number above 0 and at most 10000, got '${speedRaw}'`);
  }
  const keyHeader = input.keyHeader ?? env.KEY_HEADER ?? 'X-Service-Key';
  if (!/^[A-Za-z0-9-]{1,64}$/.test(keyHeader))
    throw new ConfigError(`--key-header is not a valid header name: '${keyHeader}'`);
  const logLevel = input.logLevel ?? env.LOG_LEVEL ?? 'info';
  if (!(LOG_LEVELS as readonly string[]).includes(logLevel)) {
    throw new ConfigError(`--log-level must be one of ${LOG_LEVELS.join(', ')}, got '${logLevel}'`);
  }
  const streamTransport = input.streamTransport ?? env.STREAM_TRANSPORT ?? 'direct';
  if (streamTransport !== 'direct' && streamTransport !== 'proxy') {
    throw new ConfigError(`stream transport must be direct or proxy, got '${streamTransport}'`);
  }
  const tls = resolveTls(input.tlsCertFile ?? env.TLS_CERT_FILE, input.tlsKeyFile ?? env.TLS_KEY_FILE);
  return {
    port: int('--port', input.port ?? env.PORT, 8080, 0, 65535),
    host: input.host ?? env.HOST ?? '0.0.0.0',
    dataDir: input.dataDir ?? env.DATA_DIR ?? './data',
    databaseUrl: resolveDatabaseUrl(input.databaseUrl ?? env.DATABASE_URL),
    feed,
    simulator: feed === 'simulator' && (input.simulator ?? true),
    replay,
    upstream: resolveUpstream(feed, input, env),
    seed: int('--seed', input.seed ?? env.SIM_SEED, 1, 0, 2 ** 31 - 1),
    speed,
    sports: resolveSports(input.sports ?? env.SIM_SPORTS),
    keyHeader,
    logLevel: logLevel as ServeConfig['logLevel'],
    logPretty: input.logPretty ?? false,
    accessLog: input.accessLog ?? false,
    metrics: resolveMetrics(input, env),
    streamTransport,
    ...(tls ? { tls } : {}),
    trustProxy: resolveTrustProxy(input.trustProxy ?? env.TRUST_PROXY),
    corsOrigins: resolveCorsOrigins(input.corsOrigins ?? env.CORS_ORIGINS),
    redisUrl: resolveRedisUrl(input.redisUrl ?? env.REDIS_URL),
    role: resolveRole(input.role ?? env.ROLE),
    webDir: input.webDir ?? (env.WEB_DIR || undefined),
    limits: resolveLimits(input.limits ?? {}, env),
  };
}

export const ROLES = ['all', 'writer', 'api'] as const;
export type Role = (typeof ROLES)[number];

function resolveRole(raw: string | undefined): Role {
  if (raw === undefined || raw === '') return 'all';
  if (!(ROLES as readonly string[]).includes(raw)) {
    throw new ConfigError(`--role must be one of ${ROLES.join(', ')}, got '${raw}'`);
  }
  return raw as Role;
}

/** A PostgreSQL connection URL as `pg` takes it, checked here so a typo stops the start with one line. */
export function resolveDatabaseUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ConfigError('--database-url must be a URL such as postgres://user:password@host:5432/oddsbase');
  }
  if (url.protocol !== 'postgres:' && url.protocol !== 'postgresql:') {
    throw new ConfigError(`--database-url must start with postgres:// or postgresql://, got '${url.protocol}//'`);
  }
  return raw;
}

const listOf = (raw: string | undefined): string[] =>
  (raw ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter((s) => s !== '');

function resolveTrustProxy(raw: string | undefined): string[] {
  const entries = listOf(raw);
  for (const entry of entries) {
    if (!isAddressOrCidr(entry)) {
      throw new ConfigError(`--trust-proxy takes addresses or CIDR ranges (10.0.0.0/8, ::1), got '${entry}'`);
    }
  }
  return entries;
}

function resolveCorsOrigins(raw: string | undefined): string[] {
  const origins = listOf(raw);
  for (const origin of origins) {
    if (origin !== '*' && !/^https?:\/\/[^/\s]+$/.test(origin)) {
      throw new ConfigError(`--cors-origins takes origins such as https://app.example.com, or *, got '${origin}'`);
    }
  }
  return origins;
}

function resolveRedisUrl(raw: string | undefined): string | undefined {
  if (raw === undefined || raw === '') return undefined;
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    // Not quoted: the text may hold a password.
    throw new ConfigError('--redis-url must be a URL such as redis://127.0.0.1:6379; the value given does not parse');
  }
  if ((url.protocol !== 'redis:' && url.protocol !== 'rediss:') || url.hostname === '') {
    throw new ConfigError(
      `--redis-url must be a redis:// or rediss:// URL with a host, got '${url.protocol}//${url.host}'`,
    );
  }
  if (url.pathname !== '' && url.pathname !== '/' && !/^\/\d+$/.test(url.pathname)) {
    throw new ConfigError(`--redis-url may end in a database number (/0), got '${url.pathname}'`);
  }
  return raw;
}

function resolveTls(certFile: string | undefined, keyFile: string | undefined): ServeConfig['tls'] {
  if (!certFile && !keyFile) return undefined;
  if (!certFile || !keyFile) throw new ConfigError('TLS needs both a certificate file and a key file');
  for (const f of [certFile, keyFile]) if (!existsSync(f)) throw new ConfigError(`TLS file not found: ${f}`);
  return { certFile, keyFile };
}

function resolveMetrics(input: ServeInput, env: NodeJS.ProcessEnv): MetricsConfig {
  const host = input.metricsHost ?? env.METRICS_HOST ?? '127.0.0.1';
  const token = input.metricsToken ?? env.METRICS_TOKEN;
  if (token !== undefined && token.length < 16) {
    throw new ConfigError('the metrics token must be at least 16 characters');
  }
  if (token === undefined && !LOOPBACK.test(host)) {
    throw new ConfigError(
      `metrics host ${host} is not a loopback address: set METRICS_TOKEN to serve metrics beyond this machine`,
    );
  }
  return {
    host,
    port: metricsPortOf(input.metricsPort ?? env.METRICS_PORT),
    ...(token === undefined ? {} : { token }),
  };
}

function metricsPortOf(raw: string | number | undefined): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  return int('--metrics-port', raw, 0, 0, 65535);
}

/** Each limit from the input, else its environment variable (AUTH_CACHE_MS, ...), else the default. */
function resolveLimits(input: Partial<Limits>, env: NodeJS.ProcessEnv): Limits {
  const pick = (name: keyof Limits, envName: string, min: number, max: number) =>
    int(envName.toLowerCase(), input[name] ?? env[envName], DEFAULT_LIMITS[name], min, max);
  return {
    authCacheMs: pick('authCacheMs', 'AUTH_CACHE_MS', 0, 3_600_000),
    delayTickMs: pick('delayTickMs', 'DELAY_TICK_MS', 10, 60_000),
    delayMaxEntries: pick('delayMaxEntries', 'DELAY_MAX_ENTRIES', 1000, 100_000_000),
    counterSaveMs: pick('counterSaveMs', 'COUNTER_SAVE_MS', 100, 3_600_000),
    counterSendGapMs: pick('counterSendGapMs', 'COUNTER_SEND_GAP_MS', 0, 1000),
    counterFarSendGapMs: pick('counterFarSendGapMs', 'COUNTER_FAR_SEND_GAP_MS', 0, 10_000),
    checkpointMs: pick('checkpointMs', 'CHECKPOINT_MS', 0, 3_600_000),
    ledgerMaxQueuedBatches: pick('ledgerMaxQueuedBatches', 'LEDGER_MAX_QUEUED_BATCHES', 1, 100_000),
    shutdownGraceMs: pick('shutdownGraceMs', 'SHUTDOWN_GRACE_MS', 0, 600_000),
    accessSummaryMs: pick('accessSummaryMs', 'ACCESS_SUMMARY_MS', 1000, 86_400_000),
    cacheMb: pick('cacheMb', 'CACHE_MB', 1, 65_536),
    deltaMemoryKb: pick('deltaMemoryKb', 'DELTA_MEMORY_KB', 1, 67_108_864),
    sendTimeoutMs: pick('sendTimeoutMs', 'SEND_TIMEOUT_MS', 100, 3_600_000),
    sendBudgetMb: pick('sendBudgetMb', 'SEND_BUDGET_MB', 1, 65_536),
    streamHeartbeatMs: pick('streamHeartbeatMs', 'STREAM_HEARTBEAT_MS', 10, 3_600_000),
    streamQueueMessages: pick('streamQueueMessages', 'STREAM_QUEUE_MESSAGES', 1, 1_000_000),
    streamHighWaterKb: pick('streamHighWaterKb', 'STREAM_HIGH_WATER_KB', 1, 1_048_576),
    streamResumeMaxChanges: pick('streamResumeMaxChanges', 'STREAM_RESUME_MAX_CHANGES', 0, 10_000_000),
    streamResumeMaxConcurrent: pick('streamResumeMaxConcurrent', 'STREAM_RESUME_MAX_CONCURRENT', 1, 10_000),
    streamResumeMaxPerKey: pick('streamResumeMaxPerKey', 'STREAM_RESUME_MAX_PER_KEY', 1, 10_000),
    streamAccessCheckMs: pick('streamAccessCheckMs', 'STREAM_ACCESS_CHECK_MS', 10, 60_000),
    streamBacklogGraceMs: pick('streamBacklogGraceMs', 'STREAM_BACKLOG_GRACE_MS', 0, 60_000),
    streamTokenTtlMs: pick('streamTokenTtlMs', 'STREAM_TOKEN_TTL_MS', 1000, 3_600_000),
    sessionTtlMs: pick('sessionTtlMs', 'SESSION_TTL_MS', 1000, 30 * 86_400_000),
    retentionDays: pick('retentionDays', 'RETENTION_DAYS', 0, 36_500),
    boardKeepHours: pick('boardKeepHours', 'BOARD_KEEP_HOURS', 1, 87_600),
    retentionTickMs: pick('retentionTickMs', 'RETENTION_TICK_MS', 10, 3_600_000),
    retentionBatchRows: pick('retentionBatchRows', 'RETENTION_BATCH_ROWS', 100, 1_000_000),
    ingestBodyMb: pick('ingestBodyMb', 'INGEST_BODY_MB', 1, 1024),
    loadProgressMs: pick('loadProgressMs', 'LOAD_PROGRESS_MS', 1, 600_000),
  };
}
