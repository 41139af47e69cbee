/** A secret store whose reads by hash can be counted and held. */
interface ReadsByHash<R> {
  findByHash(hash: string): Promise<R | undefined>;
}

type StoreClass<R> = new (...args: any[]) => ReadsByHash<R>;

/**
 * `Base` with its reads by hash counted and answered only when `answer` is called, so a test sees
 * how many reads requests share and what they do while one runs (keys and admin tokens alike).
 */
export function heldReads<R, B extends StoreClass<R>>(Base: B) {
  return class extends Base {
    reads = 0;
    readonly waiting: (() => void)[] = [];

    override async findByHash(hash: string): Promise<R | undefined> {
      this.reads++;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      return super.findByHash(hash);
    }

    /** Lets every read asked so far go on, and waits until they have settled. */
    async answer(): Promise<void> {
      for (const go of this.waiting.splice(0)) go();
      await new Promise((r) => setImmediate(r));
    }
  };
}
