/** Which callers a turn goes to first: see Turns. */
export type TurnRank = 'refresh' | 'started' | 'new';

/**
 * Turns of the event loop for expensive answers: each caller of `next()` starts when its turn comes,
 * one caller a turn, in the order they asked. A turn ends when the loop goes round, so between two
 * expensive builds the server reads its sockets again and answers the cheap requests that arrived
 * meanwhile (a poll whose body is kept, by the fast lane or a route's cache hit) instead of making
 * them wait behind every build that arrived before them. Requests that all start their builds at
 * once (tens of distinct filters arriving together) would otherwise run back to back, each poll
 * waiting for all of them. The builds themselves take as long as before, in the same order.
 *
 * Callers rank their turns. A `refresh` (of an answer the server kept until the board moved: a
 * poll that clients repeat) goes before every other: it waits for the turn in progress only, not
 * behind a queue of answers nobody asked for before (distinct filters, which a client can send as
 * fast as its rate limit allows). Then work `started` (the later slices of a build, the parts of a
 * page being written) before `new` work: what began finishes first, so the builds of a burst run
 * one after another between the cheap answers instead of all in step, each holding its partial
 * state (and its request) until the last of them ends. Each rank keeps its callers' order.
 */
export class Turns {
  private readonly queues: Record<TurnRank, (() => void)[]> = { refresh: [], started: [], new: [] };
  private scheduled = false;

  /** Resolves at the caller's turn; the code after the await runs alone in that turn. */
  next(rank: TurnRank = 'new'): Promise<void> {
    return new Promise((resolve) => {
      this.queues[rank].push(resolve);
      this.schedule();
    });
  }

  /** Callers waiting for a turn. */
  get queued(): number {
    return this.queues.refresh.length + this.queues.started.length + this.queues.new.length;
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.turn);
  }

  // One caller per check phase: its continuation runs in the microtasks right after, and the next
  // turn is a new setImmediate, which runs after the loop's next poll for I/O.
  private readonly turn = (): void => {
    this.scheduled = false;
    const resolve = this.queues.refresh.shift() ?? this.queues.started.shift() ?? this.queues.new.shift();
    if (this.queued > 0) this.schedule();
    resolve?.();
  };
}
