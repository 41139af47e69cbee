import type pg from 'pg';
import { connectClient, inTransaction, WRITER_LOCK } from './database.ts';

/** The store's writes refused: another process holds the writer's lock, or this one lost it. */
export class WriterLockLost extends Error {}

export interface PgWriterOptions {
  onError: (err: unknown) => void;
  /**
   * Checks, on the connection that has just taken the lock again after this writer's connection
   * broke, that no one wrote meanwhile; throws if someone did (this writer's state is then stale).
   */
  regained?: (client: pg.Client) => Promise<void>;
  /** The first wait before connecting again, doubled up to `retryMaxMs`. */
  retryMs?: number;
  retryMaxMs?: number;
}

/** Whether the writer may write now, and if not, why. */
export type WriterState =
  | { holding: true }
  | { holding: false; why: string; /** It will not hold the lock again: restart it. */ final: boolean };

/**
 * The single writer of a PostgreSQL store: one connection of its own that holds the writer's
 * advisory lock for as long as it lives, and runs every write of this store, one at a time.
 * PostgreSQL drops the lock with the connection, so a writer that dies (a crash, `kill -9`, a
 * network cut) frees it at once for a standby, and a writer whose connection broke never writes on
 * another connection without the lock.
 *
 * A broken connection (PostgreSQL restarted, a network cut) is connected again with backoff; writes
 * are refused meanwhile. The lock is then tried, not waited for: if another server took it while
 * this one was away, or wrote under it (`regained`), this writer writes no more and says so (it is
 * restarted, and becomes the standby). Waiting for the lock at the start survives a restart of
 * PostgreSQL the same way.
 */
export class PgWriter {
  private client: pg.Client | undefined;
  private acquiring: Promise<pg.Client> | undefined;
  private lost: Error | undefined;
  /** Set while the connection is broken and being made again. */
  private away: Error | undefined;
  private closed = false;
  /** The connection waiting for the lock, while one waits. */
  private waiting: pg.Client | undefined;
  /** The tail of the queue of writes: each starts when the previous one has settled. */
  private tail: Promise<unknown> = Promise.resolve();
  private readonly onError: (err: unknown) => void;

  constructor(
    private readonly url: string,
    private readonly opts: PgWriterOptions,
  ) {
    this.onError = opts.onError;
  }

  /** Whether this writer holds the lock now. */
  get holding(): boolean {
    return this.client !== undefined && this.lost === undefined && this.away === undefined;
  }

  get state(): WriterState {
    if (this.lost) return { holding: false, why: this.lost.message, final: true };
    if (this.away) return { holding: false, why: this.away.message, final: false };
    return this.client ? { holding: true } : { holding: false, why: 'waiting for the writer lock', final: false };
  }

  /**
   * Takes the lock, waiting while another process holds it (`onWait` is told once, before the
   * wait). Writes take it themselves when they need it; a server takes it first, so that it loads
   * the store only once it is the writer.
   */
  hold(onWait?: () => void): Promise<pg.Client> {
    if (this.lost) return Promise.reject(this.lost);
    if (this.away) return Promise.reject(this.away);
    if (this.client) return Promise.resolve(this.client);
    this.acquiring ??= this.acquire(onWait).finally(() => {
      this.acquiring = undefined;
    });
    return this.acquiring;
  }

  /** Connects and waits for the lock; a connection that breaks meanwhile is made again. */
  private async acquire(onWait?: () => void): Promise<pg.Client> {
    let told = false;
    let retryMs = this.opts.retryMs ?? 500;
    for (;;) {
      let client: pg.Client | undefined;
      try {
        const tried = await this.connectAndTry();
        client = tried.client;
        if (!tried.locked) {
          if (!told) onWait?.();
          told = true;
          // Closing the store ends the wait (a standby stopped before it took over).
          this.waiting = client;
          await client.query('SELECT pg_advisory_lock($1)', [WRITER_LOCK]).finally(() => {
            this.waiting = undefined;
          });
        }
        this.adopt(client);
        return client;
      } catch (err) {
        await client?.end().catch(() => undefined);
        if (this.closed || this.lost) throw this.lost ?? err;
        this.onError(
          new Error(`waiting for the writer lock: PostgreSQL did not answer (${String(err)}); trying again`),
        );
        await sleep(retryMs);
        retryMs = Math.min(retryMs * 2, this.opts.retryMaxMs ?? 5000);
      }
    }
  }

  /**
   * A new connection that tries the lock once, without waiting. A connection that fails after the
   * connect has its client closed here; one that breaks later is told to `broken`.
   */
  private async connectAndTry(): Promise<{ client: pg.Client; locked: boolean }> {
    const client: pg.Client = await connectClient(this.url, (err) => this.broken(client, err));
    try {
      const tried = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [WRITER_LOCK]);
      return { client, locked: tried.rows[0]!.locked };
    } catch (err) {
      await client.end().catch(() => undefined);
      throw err;
    }
  }

  private adopt(client: pg.Client): void {
    client.on('end', () => this.broken(client, new Error("the writer's connection to PostgreSQL ended")));
    this.client = client;
  }

  /** The held connection broke: writes are refused until it is made again and the lock taken. */
  private broken(client: pg.Client | undefined, err: unknown): void {
    if (client === undefined || client !== this.client || this.closed || this.lost || this.away) return;
    this.away = new WriterLockLost(`the writer's connection to PostgreSQL broke (${errorText(err)}); reconnecting`);
    this.onError(this.away);
    void this.regain();
  }

  private async regain(): Promise<void> {
    const old = this.client;
    this.client = undefined;
    await old?.end().catch(() => undefined);
    let retryMs = this.opts.retryMs ?? 500;
    while (!this.closed) {
      await sleep(retryMs);
      retryMs = Math.min(retryMs * 2, this.opts.retryMaxMs ?? 5000);
      let client: pg.Client | undefined;
      try {
        const tried = await this.connectAndTry();
        client = tried.client;
        if (!tried.locked) {
          await client.end().catch(() => undefined);
          this.giveUp('another server took the writer lock while this one was away from PostgreSQL');
          return;
        }
        try {
          await this.opts.regained?.(client);
        } catch (err) {
          await client.end().catch(() => undefined);
          this.giveUp(errorText(err));
          return;
        }
        if (this.closed) {
          await client.end().catch(() => undefined);
          return;
        }
        this.adopt(client);
        this.away = undefined;
        this.onError(new Error("the writer's connection to PostgreSQL is back, with the writer lock"));
        return;
      } catch (err) {
        await client?.end().catch(() => undefined);
        this.away = new WriterLockLost(`the writer cannot reach PostgreSQL (${errorText(err)}); reconnecting`);
      }
    }
  }

  private giveUp(why: string): void {
    this.away = undefined;
    this.lost = new WriterLockLost(`this server writes no more: ${why}; restart it (it then waits as the standby)`);
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
    this.closed = true;
    const client = this.client;
    this.client = undefined;
    this.lost ??= new WriterLockLost('the store is closed');
    await client?.end().catch(() => undefined);
    await this.waiting?.end().catch(() => undefined);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

const errorText = (err: unknown): string => String((err as Error)?.message ?? err);
