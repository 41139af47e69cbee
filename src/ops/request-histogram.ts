/** One labelled series: how many requests fell in each bucket (the last one past every bound), and their sum. */
interface Series {
  labels: string;
  counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * The request histogram (`<name>_bucket`, `_sum`, `_count` by method, route pattern and status),
 * kept in plain arrays and written in the Prometheus text format at scrape time. It is counted on
 * every request: prom-client's own `observe` validates and hashes its labels on each call, about a
 * microsecond a request, where this costs a map lookup and an increment.
 */
export class RequestHistogram {
  /**
   * Series by route, then method, then status: the route and method strings are the same objects on
   * every request, so their hashes are cached, where a key built per request would be hashed anew.
   */
  private readonly byRoute = new Map<string, Map<string, Map<number, Series>>>();
  private readonly series: Series[] = [];

  constructor(
    readonly name: string,
    private readonly help: string,
    private readonly bounds: readonly number[],
  ) {}

  record(method: string, route: string, status: number, seconds: number): void {
    let byMethod = this.byRoute.get(route);
    if (!byMethod) this.byRoute.set(route, (byMethod = new Map()));
    let byStatus = byMethod.get(method);
    if (!byStatus) byMethod.set(method, (byStatus = new Map()));
    let s = byStatus.get(status);
    if (!s) {
      s = {
        labels: `method="${escape(method)}",route="${escape(route)}",status_code="${status}"`,
        counts: new Float64Array(this.bounds.length + 1),
        sum: 0,
        count: 0,
      };
      byStatus.set(status, s);
      this.series.push(s);
    }
    let b = 0;
    while (b < this.bounds.length && seconds > this.bounds[b]!) b++;
    s.counts[b]!++;
    s.sum += seconds;
    s.count++;
  }

  /** The family in the text exposition format, ending with a newline. */
  exposition(): string {
    const lines = [`# HELP ${this.name} ${this.help}`, `# TYPE ${this.name} histogram`];
    for (const s of this.series) {
      let cumulative = 0;
      for (let b = 0; b < this.bounds.length; b++) {
        cumulative += s.counts[b]!;
        lines.push(`${this.name}_bucket{${s.labels},le="${this.bounds[b]}"} ${cumulative}`);
      }
      lines.push(`${this.name}_bucket{${s.labels},le="+Inf"} ${s.count}`);
      lines.push(`${this.name}_sum{${s.labels}} ${s.sum}`);
      lines.push(`${this.name}_count{${s.labels}} ${s.count}`);
    }
    return `${lines.join('\n')}\n`;
  }
}

/** A label value as the text format writes it: backslash, double quote and newline escaped. */
function escape(value: string): string {
  return value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n');
}
