/** Milliseconds in a UTC day. */
const DAY_MS = 86_400_000;

/**
 * The mirror's daily data-point budget (`--upstream-budget`): every upstream answer's X-Datapoints
 * is counted against the UTC day it arrived in. `spent` says when nothing more may be asked today;
 * `spacing` stretches the poll interval so that the points left last until the day ends, at the
 * average cost of a poll so far (docs/feeds.md, "Budget arithmetic").
 */
export class DailyBudget {
  private day = -1;
  private used = 0;
  private polls = 0;
  private pollPoints = 0;
  /** Points of the reads beside the follow (the season reads), in all and since the last poll told. */
  private besideTotal = 0;
  private besideSincePoll = 0;

  constructor(
    /** Points a UTC day; 0: no budget of the mirror's own (the upstream's caps still apply). */
    readonly perDay: number,
    private readonly now: () => number = Date.now,
  ) {}

  private roll(): void {
    const day = Math.floor(this.now() / DAY_MS);
    if (day !== this.day) {
      this.day = day;
      this.used = 0;
    }
  }

  /** Counts an answer's points; `beside`: of a read beside the follow, told with the next poll (`polled`). */
  count(points: number, beside = false): void {
    this.roll();
    this.used += points;
    if (beside) {
      this.besideTotal += points;
      this.besideSincePoll += points;
    }
  }

  /** Points of reads beside the follow counted so far: a poll measures its own cost without them. */
  get beside(): number {
    return this.besideTotal;
  }

  /** Points counted today. */
  get usedToday(): number {
    this.roll();
    return this.used;
  }

  /**
   * Tells the cost of one follow poll, for the spacing: its own points, and those of the reads
   * beside the follow since the poll before, which go on at the polls' pace.
   */
  polled(points: number): void {
    this.polls++;
    this.pollPoints += Math.max(0, points) + this.besideSincePoll;
    this.besideSincePoll = 0;
  }

  /** Milliseconds until the budget is renewed, when today's is spent; 0 while points are left. */
  spent(): number {
    if (this.perDay === 0) return 0;
    this.roll();
    return this.used >= this.perDay ? DAY_MS - (this.now() % DAY_MS) : 0;
  }

  /**
   * The time from the start of one poll to the start of the next: `pollMs`, or longer when polling
   * at that pace would spend the points left before the day ends. With `left` points, `msLeft` of
   * the day and an average poll cost `c`, at most `left / c` polls fit, so they are spaced
   * `msLeft * c / left` apart.
   */
  spacing(pollMs: number): number {
    if (this.perDay === 0 || this.polls === 0) return pollMs;
    this.roll();
    const average = this.pollPoints / this.polls;
    const left = this.perDay - this.used;
    if (average === 0) return pollMs;
    const msLeft = DAY_MS - (this.now() % DAY_MS);
    if (left <= 0) return msLeft;
    return Math.max(pollMs, Math.ceil((msLeft * average) / left));
  }
}
