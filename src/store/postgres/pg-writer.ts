import type pg from 'pg';
import { connectClient, inTransaction, WRITER_LOCK } from './database.ts';

/** The store's writes refused: another process holds the writer's lock, or this one lost it. */
export class WriterLockLost extends Error {}

/**
 * The single writer of a PostgreSQL store: one connection of its own that holds the writer's
 * advisory lock for as long as it lives, and runs every write of this store, one at a time.
 * PostgreSQL drops the lock with the connection, so a writer that dies (a crash, `kill -9`, a
 * network cut) frees it at once for a standby, and a writer whose connection broke writes nothing
 * more: its writes are refused from then on, never sent on another connection without the lock.
 */
export class PgWriter {
  private client: pg.Client | undefined;
  private acquiring: Promise<pg.Client> | undefined;
  private lost: Error | undefined;
  /** The tail of the queue of writes: each starts when the previous one has settled. */
  private tail: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly url: string,
    private readonly onError: (err: unknown) => void,
  ) {}

  /** Whether this writer holds the lock now. */
  get holding(): boolean {
    return this.client !== undefined && this.lost === undefined;
  }

  /**
   * Takes the lock, waiting while another process holds it (`onWait` is told once, before the
   * wait). Writes take it themselves when they need it; a server takes it first, so that it loads
   * the store only once it is the writer.
   */
  hold(onWait?: () => void): Promise<pg.Client> {
    if (this.lost) return Promise.reject(this.lost);
    if (this.client) return Promise.resolve(this.client);
    this.acquiring ??= this.acquire(onWait).finally(() => {
      this.acquiring = undefined;
    });
    return this.acquiring;
  }

  private async acquire(onWait?: () => void): Promise<pg.Client> {
    const client = await connectClient(this.url, (err) => this.lose(err));
    try {
      const tried = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [WRITER_LOCK]);
      if (!tried.rows[0]!.locked) {
        onWait?.();
        await client.query('SELECT pg_advisory_lock($1)', [WRITER_LOCK]);
      }
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
    client.on('end', () => this.lose(new WriterLockLost("the writer's connection to PostgreSQL ended")));
    this.client = client;
    return client;
  }

  private lose(err: unknown): void {
    if (this.lost) return;
    this.lost = new WriterLockLost(
      `the writer lost its lock with its connection: ${String((err as Error).message ?? err)}`,
    );
    this.onError(this.lost);
  }

  /** Runs `work` on the writer's connection after every write queued before it. */
  run<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    const next = this.tail.then(async () => work(await this.hold()));
    this.tail = next.catch(() => undefined);
    return next;
  }

  /** `run` in one transaction. */
  transaction<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
    return this.run((client) => inTransaction(client, () => work(client)));
  }

  /** Waits for the queued writes, then closes the connection (which frees the lock). */
  async close(): Promise<void> {
    await this.tail;
    const client = this.client;
    this.client = undefined;
    this.lost ??= new WriterLockLost('the store is closed');
    await client?.end().catch(() => undefined);
  }
}
