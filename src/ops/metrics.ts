import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { RefusalReason } from '../access/access-control.ts';
import type { LogPosition } from '../changelog/change.ts';
import { RequestHistogram } from './request-histogram.ts';

/** What the gauges read when scraped: narrow views of the running services, never the server. */
export interface MetricSources {
  position(): LogPosition;
  /** Batches handed to the ledger and not yet committed. */
  backlog(): number;
  /** The oldest change id the delta feeds still serve. */
  oldestId(): Promise<number>;
  /** Bytes the store's files take on disk. */
  bytesOnDisk(): Promise<number>;
  /** Events on the live board. */
  events(): number;
  views: {
    readonly size: number;
    readonly forcedAdvances: number;
    lag(): Map<number, number>;
  };
}

const REQUEST_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10];
const COMMIT_BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5];

/**
 * The server's Prometheus metrics, in a registry of its own (several servers may run in one process,
 * as the tests do). The write path and the access layer report through `commit` and `refused`; the
 * HTTP layer through `request` (kept apart from the registry: it runs on every request); everything
 * else is read from `MetricSources` at scrape time, so nothing on the request path is spent on it.
 */
export class Metrics {
  readonly registry = new Registry();
  private readonly requests = new RequestHistogram(
    'oddsbase_http_request_duration_seconds',
    'HTTP requests by route pattern, method and status, and how long they took to answer',
    REQUEST_BUCKETS,
  );
  private readonly commits: Counter;
  private readonly commitFailures: Counter;
  private readonly rows: Counter;
  private readonly commitSeconds: Histogram;
  private readonly refusals: Counter<'reason'>;
  private readonly streamDrops: Counter;
  private readonly streamOverflows: Counter;

  constructor() {
    const registers = [this.registry];
    collectDefaultMetrics({ register: this.registry });
    this.commits = new Counter({
      name: 'oddsbase_ledger_commits_total',
      help: 'Batches the ledger committed to the store',
      registers,
    });
    this.commitFailures = new Counter({
      name: 'oddsbase_ledger_commit_failures_total',
      help: 'Store commits that failed (nothing of the batch was written)',
      registers,
    });
    this.rows = new Counter({
      name: 'oddsbase_ledger_rows_total',
      help: 'Change rows committed to the change log',
      registers,
    });
    this.commitSeconds = new Histogram({
      name: 'oddsbase_ledger_commit_duration_seconds',
      help: 'Time one store commit (one transaction) took',
      buckets: COMMIT_BUCKETS,
      registers,
    });
    this.refusals = new Counter({
      name: 'oddsbase_access_refusals_total',
      help: 'Requests refused by a rate limit or cap, by reason',
      labelNames: ['reason'],
      registers,
    });
    this.streamDrops = new Counter({
      name: 'oddsbase_ws_dropped_messages_total',
      help: 'Messages the dedicated streams (markets, V1) dropped for clients more than a queue behind',
      registers,
    });
    this.streamOverflows = new Counter({
      name: 'oddsbase_ws_overflow_closes_total',
      help: 'WebSocket connections closed because a subscription queue was full (buffer_overflow)',
      registers,
    });
  }

  /** What the streams count (src/stream). */
  readonly streams = {
    dropped: (): void => this.streamDrops.inc(),
    overflowed: (): void => this.streamOverflows.inc(),
  };

  /** Registers the stream gauges, read at each scrape. */
  watchStreams(sources: { connections(): number; subscriptions(): number; queued(): number }): void {
    const registers = [this.registry];
    new Gauge({
      name: 'oddsbase_ws_connections',
      help: 'Open WebSocket connections',
      registers,
      collect() {
        this.set(sources.connections());
      },
    });
    new Gauge({
      name: 'oddsbase_ws_subscriptions',
      help: 'Subscriptions of open WebSocket connections (a dedicated stream, markets or V1, counts one each)',
      registers,
      collect() {
        this.set(sources.subscriptions());
      },
    });
    new Gauge({
      name: 'oddsbase_ws_queued_messages',
      help: 'Messages WebSocket connections hold unwritten in the process (live deltas, replayed deltas, answers)',
      registers,
      collect() {
        this.set(sources.queued());
      },
    });
  }

  /** The ledger's commit observer. */
  readonly commit = (rows: number, seconds: number, failed: boolean): void => {
    if (failed) {
      this.commitFailures.inc();
      return;
    }
    this.commits.inc();
    this.rows.inc(rows);
    this.commitSeconds.observe(seconds);
  };

  /** The access layer's refusal observer. */
  readonly refused = (reason: RefusalReason): void => {
    this.refusals.inc({ reason });
  };

  /** One answered request; `route` is the route's pattern (bounded), never the raw URL. */
  request(method: string, route: string, status: number, seconds: number): void {
    this.requests.record(method, route, status, seconds);
  }

  /**
   * On an API node: how far its board is behind the writer, as the commit time of the newest change
   * it applied against its clock when it applied it (`followed`, on every batch).
   */
  watchFollowing(): void {
    this.followLag = new Gauge({
      name: 'oddsbase_follow_lag_seconds',
      help: "Seconds between the writer's commit of the newest change this API node applied and its apply",
      registers: [this.registry],
    });
  }

  private followLag: Gauge | undefined;

  /** A mirror (`--feed upstream`): whether its upstream answers, and how old its last full poll is. */
  watchUpstream(state: () => { up: boolean; lastSyncMs: number; streaming: boolean }, now: () => number): void {
    new Gauge({
      name: 'oddsbase_upstream_streaming',
      help: "Whether the mirror follows the upstream's prices through its WebSocket stream (1) or by polling (0)",
      registers: [this.registry],
      collect() {
        this.set(state().streaming ? 1 : 0);
      },
    });
    new Gauge({
      name: 'oddsbase_upstream_up',
      help: 'Whether the last exchange with the mirrored upstream succeeded (1) or not (0)',
      registers: [this.registry],
      collect() {
        this.set(state().up ? 1 : 0);
      },
    });
    new Gauge({
      name: 'oddsbase_upstream_lag_seconds',
      help: 'Seconds since the mirror last read the upstream to its head (-1 before the first time)',
      registers: [this.registry],
      collect() {
        const last = state().lastSyncMs;
        this.set(last === 0 ? -1 : Math.max(0, now() - last) / 1000);
      },
    });
  }

  /** An API node applied a batch `lagMs` after the writer committed its newest change. */
  followed(lagMs: number): void {
    this.followLag?.set(Math.max(0, lagMs) / 1000);
  }

  /** With a bus between nodes: the batches it could not hand to them (Redis away or too slow). */
  watchBus(dropped: () => number): void {
    let seen = 0;
    new Counter({
      name: 'oddsbase_bus_dropped_batches_total',
      help: 'Committed batches not published to the other nodes (they read them from the store)',
      registers: [this.registry],
      collect() {
        const now = dropped();
        if (now > seen) this.inc(now - seen);
        seen = now;
      },
    });
  }

  /** Registers the gauges that are read from the running services at each scrape. */
  watch(sources: MetricSources): void {
    const registers = [this.registry];
    new Gauge({
      name: 'oddsbase_changelog_head_id',
      help: 'Newest committed change id',
      registers,
      collect() {
        this.set(sources.position().id);
      },
    });
    new Gauge({
      name: 'oddsbase_changelog_info',
      help: "The change log's epoch (it changes when the log is recreated or restored from a backup)",
      labelNames: ['epoch'],
      registers,
      collect() {
        this.reset();
        this.set({ epoch: sources.position().epoch }, 1);
      },
    });
    new Gauge({
      name: 'oddsbase_changelog_oldest_id',
      help: 'Oldest change id the delta feeds still serve; a cursor before it must re-bootstrap',
      registers,
      async collect() {
        this.set(await sources.oldestId());
      },
    });
    new Gauge({
      name: 'oddsbase_ledger_backlog_batches',
      help: 'Batches waiting for their commit',
      registers,
      collect() {
        this.set(sources.backlog());
      },
    });
    new Gauge({
      name: 'oddsbase_store_disk_bytes',
      help: "Bytes the store's files take on disk",
      registers,
      async collect() {
        this.set(await sources.bytesOnDisk());
      },
    });
    new Gauge({
      name: 'oddsbase_board_events',
      help: 'Events held in memory on the live board',
      registers,
      collect() {
        this.set(sources.events());
      },
    });
    new Gauge({
      name: 'oddsbase_delayed_view_lag_changes',
      help: 'How many change ids a delayed plan view is behind the live head, by delay',
      labelNames: ['delay_seconds'],
      registers,
      collect() {
        for (const [delay, lag] of sources.views.lag()) this.set({ delay_seconds: String(delay) }, lag);
      },
    });
    new Gauge({
      name: 'oddsbase_delayed_view_entries',
      help: 'Changes kept in memory so that delayed views can undo them',
      registers,
      collect() {
        this.set(sources.views.size);
      },
    });
    let forced = 0;
    new Counter({
      name: 'oddsbase_delayed_view_forced_advances_total',
      help: 'Times the memory bound moved a delayed view on before its delay had passed',
      registers,
      collect() {
        const now = sources.views.forcedAdvances;
        if (now > forced) this.inc(now - forced);
        forced = now;
      },
    });
  }

  /** The exposition text of every metric. */
  async text(): Promise<string> {
    return `${await this.registry.metrics()}\n${this.requests.exposition()}`;
  }

  get contentType(): string {
    return this.registry.contentType;
  }
}
