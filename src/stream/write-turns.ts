/** A connection with messages waiting: `write` sends one chunk of them, true if more remain to send now. */
export interface Writer {
  write(): boolean;
}

/**
 * Turns of the event loop for the streams' writes, shared by every connection. A burst of changes
 * (games going live together: thousands of prices at once) gives every subscribed client its share,
 * and each connection wrote all of it (up to its socket's high-water mark) in the same pass of the
 * loop: 3,000 changes to 24 clients held REST requests for 105-195 ms (bench/stream-burst.ts). Here
 * the connections that have messages due write one chunk each in turn, the oldest waiting first,
 * until `budgetMs` is spent; the rest wait for the next pass, after the loop has read its sockets.
 * A connection with more left goes to the back, so one busy client never holds up the others.
 */
export class WriteTurns {
  private queue: Writer[] = [];
  private scheduled = false;

  constructor(
    private readonly budgetMs: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Connections waiting for a turn. */
  get waiting(): number {
    return this.queue.length;
  }

  /** Gives `w` a turn, after those waiting; the connection keeps itself from being added twice. */
  add(w: Writer): void {
    this.queue.push(w);
    this.schedule();
  }

  private schedule(): void {
    if (this.scheduled) return;
    this.scheduled = true;
    setImmediate(this.run);
  }

  private readonly run = (): void => {
    this.scheduled = false;
    const until = this.now() + this.budgetMs;
    const queue = this.queue;
    let i = 0;
    while (i < queue.length) {
      const w = queue[i++]!;
      if (w.write()) queue.push(w);
      if (this.now() >= until) break;
    }
    this.queue = queue.slice(i);
    if (this.queue.length > 0) this.schedule();
  };
}
