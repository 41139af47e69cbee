import { pick } from './switch.ts';

/** Which callers an HTTP turn goes to first: see `Turns`. */
export type TurnRank = 'refresh' | 'started' | 'new';

/** A stream connection with messages waiting: `write` sends one chunk of them, true if more remain now. */
export interface Writer {
  write(): boolean;
}

/**
 * The server's one scheduler of cooperative turns, shared by the HTTP builds and the streams'
 * writes. Both kinds of work are expensive in bursts: a build of a large snapshot, the frames of
 * thousands of prices for every subscribed client. Run as they come, either holds the loop for
 * every cheap request (a poll whose body is kept) that arrives meanwhile. Here each pass of the
 * loop gives the streams' writers up to `budgetMs`, then one HTTP caller its turn, and then the
 * loop reads its sockets again; neither kind can take a pass from the other.
 */
export interface Turns {
  /** Resolves at the caller's HTTP turn; the code after the await runs alone in that turn. */
  next(rank?: TurnRank): Promise<void>;
  /** Gives `w` a write turn, after those waiting; the connection keeps itself from being added twice. */
  add(w: Writer): void;
  /** HTTP callers waiting for a turn. */
  readonly queued: number;
  /** Writers waiting for a turn. */
  readonly waiting: number;
}

/**
 * The turns as the trick plays them.
 *
 * HTTP callers rank their turns. A `refresh` (of an answer the server kept until the board moved:
 * a poll that clients repeat) goes before every other: it waits for the turn in progress only, not
 * behind a queue of answers nobody asked for before (distinct filters, which a client can send as
 * fast as its rate limit allows). Then work `started` (the later slices of a build, the parts of a
 * page being written) before `new` work: what began finishes first, so the builds of a burst run
 * one after another between the cheap answers instead of all in step, each holding its partial
 * state (and its request) until the last of them ends. Each rank keeps its callers' order.
 *
 * Writers with messages due write one chunk each, the oldest waiting first, until the pass's
 * budget is spent; one with more left goes to the back, so one busy client never holds up the
 * others (3,000 changes to 24 clients written in one pass held REST requests for 105-195 ms,
 * bench/stream-burst.ts).
 */
export class RankedTurns implements Turns {
  private readonly queues: Record<TurnRank, (() => void)[]> = { refresh: [], started: [], new: [] };
  private writers: Writer[] = [];
  private scheduled = false;

  constructor(
    private readonly budgetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  next(rank: TurnRank = 'new'): Promise<void> {
    return new Promise((resolve) => {
      this.queues[rank].push(resolve);
      this.schedule();
    });
  }

  add(w: Writer): void {
    this.writers.push(w);
    this.schedule();
  }

  get queued(): number {
    return this.queues.refresh.length + this.queues.started.length + this.queues.new.length;
  }

  get waiting(): number {
    return this.writers.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.pass);
  }

  // One pass per check phase: the writes, then one HTTP caller, whose continuation runs in the
  // microtasks right after; the next pass is a new setImmediate, after the loop's next poll for I/O.
  private readonly pass = (): void => {
    this.scheduled = false;
    if (this.writers.length > 0) this.write();
    const resolve = this.queues.refresh.shift() ?? this.queues.started.shift() ?? this.queues.new.shift();
    if (this.queued > 0 || this.writers.length > 0) this.schedule();
    resolve?.();
  };

  private write(): void {
    const until = this.now() + this.budgetMs;
    const queue = this.writers;
    let i = 0;
    while (i < queue.length) {
      const w = queue[i++]!;
      if (w.write()) queue.push(w);
      if (this.now() >= until) break;
    }
    this.writers = queue.slice(i);
  }
}

/**
 * The plain twin: no ranks and no budget. Each HTTP caller goes on in the next pass of the loop, all
 * of them together, in the order they asked; each writer writes everything it has due in one go.
 */
export class PlainTurns implements Turns {
  private callers: (() => void)[] = [];
  private writers: Writer[] = [];
  private scheduled = false;

  next(): Promise<void> {
    return new Promise((resolve) => {
      this.callers.push(resolve);
      this.schedule();
    });
  }

  add(w: Writer): void {
    this.writers.push(w);
    this.schedule();
  }

  get queued(): number {
    return this.callers.length;
  }

  get waiting(): number {
    return this.writers.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.pass);
  }

  private readonly pass = (): void => {
    this.scheduled = false;
    const writers = this.writers;
    const callers = this.callers;
    this.writers = [];
    this.callers = [];
    for (const w of writers) while (w.write());
    for (const resolve of callers) resolve();
  };
}

/**
 * The streams' writes get this much of a pass at most: as long as a slice of a REST build
 * (src/http/events-envelope.ts), so neither holds the other up for longer.
 */
export const WRITE_TURN_MS = 3;

/** The server's turns: the trick, or its plain twin under ODDSBASE_PLAIN=1. */
export function makeTurns(budgetMs = WRITE_TURN_MS, now?: () => number): Turns {
  return pick<() => Turns>(
    () => new RankedTurns(budgetMs, now),
    () => new PlainTurns(),
  )();
}
