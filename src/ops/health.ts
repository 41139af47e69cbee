import type { FollowState } from '../board/follower.ts';
import type { FastifyInstance } from 'fastify';

export type ReadinessFeed = 'simulator' | 'ingest' | 'replay' | 'upstream' | 'none' | 'bus';
export type ReadinessRole = 'all' | 'writer' | 'standby' | 'api';

/**
 * Whether this node should be sent traffic. The start order makes two of the conditions hold before
 * the app can be asked: until the store is loaded and the feed's history filled, the port is held by
 * the starting listener (src/ops/starting.ts), whose `/readyz` is 503 with the step; the app takes
 * the port over and starts the feed then. What can change while it runs is the store: a failed
 * commit (a full disk, an I/O error) makes it not ready until a commit succeeds again. During a
 * shutdown the app answers every request, this one included, 503. The past part of a first fill
 * (the games before today, filled in the background) does not make it unready: `history` says
 * where it stands.
 */
export class Readiness {
  private failedAt: string | undefined;
  private follow: (() => FollowState) | undefined;
  private storeProblem: () => string | undefined = () => undefined;
  private upstreamProblem: (() => string | undefined) | undefined;
  /** Where the background part of the history fill stands; `complete` when none runs. */
  history = 'complete';

  /**
   * `feed` `bus`: a node whose changes come from the writer through the bus. `role` is what the node
   * does now: `all` (the embedded default), `writer`, `standby` (a writer waiting for the writer
   * lock, serving as an API node meanwhile) or `api`.
   */
  constructor(
    private feed: ReadinessFeed,
    private role: ReadinessRole,
  ) {}

  /** A standby that took the writer lock: it commits from its own feed, and its store is the writer's. */
  becameWriter(feed: ReadinessFeed, problem: () => string | undefined): void {
    this.role = 'writer';
    this.feed = feed;
    this.follow = undefined;
    this.storeProblem = problem;
  }

  /**
   * A mirror (`--feed upstream`) is not ready until it has caught up with its upstream, nor while
   * the upstream is away: it serves what it holds all the same, and says why here.
   */
  watchUpstream(problem: () => string | undefined): void {
    this.upstreamProblem = problem;
  }

  /**
   * An API node is ready while its follower has applied every batch it was handed: not while it
   * fills a gap from the store, nor while the store it would fill from does not answer.
   */
  following(state: () => FollowState): void {
    this.follow = state;
  }

  /** The ledger's commit observer. */
  readonly commit = (_rows: number, _seconds: number, failed: boolean): void => {
    this.failedAt = failed ? new Date().toISOString() : undefined;
  };

  /** What keeps the store from taking writes now (a writer away from PostgreSQL), if anything. */
  watchStore(problem: () => string | undefined): void {
    this.storeProblem = problem;
  }

  report(): { ready: boolean; body: Record<string, unknown> } {
    const problem = this.storeProblem();
    const follow = this.follow?.();
    const behind =
      follow === undefined || follow === 'following'
        ? undefined
        : follow === 'filling'
          ? 'filling a gap in the change log from the store'
          : `waiting for the store to fill a gap: ${follow.waitingForStore}`;
    const upstream = this.upstreamProblem?.();
    const ready =
      this.failedAt === undefined && behind === undefined && problem === undefined && upstream === undefined;
    return {
      ready,
      body: {
        status: ready ? 'ready' : 'not ready',
        role: this.role,
        store: problem ?? (this.failedAt === undefined ? 'ok' : `the last commit failed at ${this.failedAt}`),
        feed: this.feed,
        ...(follow === undefined ? {} : { follow: behind ?? 'following' }),
        ...(this.upstreamProblem === undefined ? {} : { upstream: upstream ?? 'following' }),
        history: this.history,
      },
    };
  }
}

/**
 * Reads the store every `everyMs` (an API node, which writes nothing and so would not otherwise
 * notice that PostgreSQL is away): `problem` says why the last read failed, until one succeeds.
 */
export class StoreProbe {
  private failed: string | undefined;
  private readonly timer: NodeJS.Timeout;
  private running = false;

  constructor(read: () => Promise<unknown>, everyMs: number) {
    this.timer = setInterval(() => {
      if (this.running) return;
      this.running = true;
      read()
        .then(
          () => (this.failed = undefined),
          (err: unknown) => (this.failed = `the store does not answer: ${String((err as Error)?.message ?? err)}`),
        )
        .finally(() => (this.running = false));
    }, everyMs);
    this.timer.unref();
  }

  readonly problem = (): string | undefined => this.failed;

  stop(): void {
    clearInterval(this.timer);
  }
}

/**
 * `/healthz` (the process answers: alive) and `/readyz` (200 when ready, 503 when not), without a
 * key and without metering, for load balancers and orchestrators.
 */
export function healthRoutes(app: FastifyInstance, readiness: Readiness): void {
  const probe = { config: { public: true }, schema: { hide: true } } as const;
  app.get('/healthz', probe, async (_request, reply) => {
    reply.header('cache-control', 'no-store');
    return { status: 'ok' };
  });
  app.get('/readyz', probe, async (_request, reply) => {
    const r = readiness.report();
    reply.code(r.ready ? 200 : 503).header('cache-control', 'no-store');
    return r.body;
  });
}
