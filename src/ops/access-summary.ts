/** Writes one structured line. */
export type LogLine = (fields: Record<string, unknown>, message: string) => void;

/**
 * The default access log: one line per interval that counts the requests answered, by status class,
 * with their mean and slowest time, instead of a line per request (which costs a busy server a share
 * of its CPU: docs/benchmarks.md). Nothing is written for an interval without requests.
 */
export class AccessSummary {
  private requests = 0;
  private readonly byClass = [0, 0, 0, 0, 0, 0];
  private totalMs = 0;
  private maxMs = 0;
  private since: number;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly write: LogLine,
    everyMs: number,
    private readonly now: () => number = Date.now,
  ) {
    this.since = now();
    this.timer = setInterval(() => this.flush(), everyMs);
    this.timer.unref();
  }

  record(status: number, ms: number): void {
    this.requests++;
    this.byClass[Math.min(5, Math.floor(status / 100))]!++;
    this.totalMs += ms;
    if (ms > this.maxMs) this.maxMs = ms;
  }

  /** Writes the line for the requests since the last one, if there were any. */
  flush(): void {
    const t = this.now();
    if (this.requests > 0) {
      const status: Record<string, number> = {};
      for (let c = 1; c <= 5; c++) if (this.byClass[c]! > 0) status[`${c}xx`] = this.byClass[c]!;
      this.write(
        {
          requests: this.requests,
          status,
          mean_ms: Number((this.totalMs / this.requests).toFixed(2)),
          max_ms: Number(this.maxMs.toFixed(2)),
          seconds: Number(((t - this.since) / 1000).toFixed(1)),
        },
        'requests answered',
      );
    }
    this.requests = 0;
    this.byClass.fill(0);
    this.totalMs = 0;
    this.maxMs = 0;
    this.since = t;
  }

  /** Writes the last line and stops. */
  close(): void {
    clearInterval(this.timer);
    this.flush();
  }
}
