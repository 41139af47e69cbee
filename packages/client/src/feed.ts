/**
 * The async-iterator face of a stream: items queue until taken, up to `limit`; a consumer that
 * falls further behind ends the iteration with an error rather than growing memory without bound.
 */
export class Feed<T> implements AsyncIterable<T> {
  private readonly items: T[] = [];
  private waiting: ((r: IteratorResult<T>) => void) | undefined;
  private failed: ((e: Error) => void) | undefined;
  private done = false;
  private error: Error | undefined;

  constructor(
    private readonly limit = 10_000,
    private readonly onReturn: () => void = () => {},
  ) {}

  push(item: T): void {
    if (this.done) return;
    if (this.waiting) {
      const w = this.waiting;
      this.waiting = this.failed = undefined;
      return w({ value: item, done: false });
    }
    if (this.items.length >= this.limit) return this.end(new Error(`the reader fell ${this.limit} messages behind`));
    this.items.push(item);
  }

  end(error?: Error): void {
    if (this.done) return;
    this.done = true;
    this.error = error;
    if (error && this.failed) this.failed(error);
    else this.waiting?.({ value: undefined, done: true });
    this.waiting = this.failed = undefined;
  }

  [Symbol.asyncIterator](): AsyncIterator<T> {
    return {
      next: () => {
        if (this.items.length) return Promise.resolve({ value: this.items.shift()!, done: false });
        if (this.done)
          return this.error ? Promise.reject(this.error) : Promise.resolve({ value: undefined, done: true });
        return new Promise((resolve, reject) => {
          this.waiting = resolve;
          this.failed = reject;
        });
      },
      return: () => {
        this.end();
        this.onReturn();
        return Promise.resolve({ value: undefined, done: true });
      },
    };
  }
}
