/**
 * Remembers recent failed key checks per client address so that guessing keys gets slow: the first
 * few failures in a minute answer at once, each one after that waits 100 ms more, up to 2 s.
 */
export class FailedAuthThrottle {
  private readonly failures = new Map<string, { count: number; since: number }>();

  constructor(
    private readonly freeFailures = 5,
    private readonly windowMs = 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Records a failure and returns how long to hold the answer, in ms. */
  fail(address: string): number {
    const t = this.now();
    let f = this.failures.get(address);
    if (!f || t - f.since > this.windowMs) {
      if (this.failures.size >= 10_000) this.failures.clear();
      f = { count: 0, since: t };
      this.failures.set(address, f);
    }
    f.count++;
    return Math.min(2000, Math.max(0, f.count - this.freeFailures) * 100);
  }
}
