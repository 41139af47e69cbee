import { randomUUID } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import type { BatchListener, Bus, CommittedBatch } from '../bus.ts';
import { decodeBatch, encodeBatch } from './batch-codec.ts';

export interface RedisBusOptions {
  /** `redis://[user:password@]host:port[/db]`, or `rediss://` for TLS. */
  url: string;
  /**
   * The ioredis client class, handed in so that only a process that uses Redis loads ioredis
   * (importing it takes 0.2-0.4 s of a start): `(await import('ioredis')).Redis`.
   */
  driver: typeof Redis;
  /** The stream's key; nodes of one cluster share it. */
  stream?: string;
  /**
   * Entries the stream keeps (trimmed approximately, whole radix-tree nodes at a time). A node
   * whose connection drops resumes from the stream if its last entry is still there, and sees a
   * gap otherwise. At 500-row live batches an entry is about 250 KB at most: 1,000 entries bound
   * the stream near 250 MB of Redis memory in the worst case, minutes of live traffic.
   */
  maxLen?: number;
  /** Encoded batches waiting for Redis past which a new batch is dropped (its subscribers see a gap). */
  maxPendingBytes?: number;
  /** Where listeners' errors and Redis failures go. */
  onError?: (err: unknown) => void;
  /**
   * Options for both connections beyond the URL. `connectionName` prefixes the two connections'
   * names (`<name>:bus-pub`, `<name>:bus-sub`, as CLIENT LIST shows them; default `oddsbase`).
   */
  redis?: RedisOptions;
}

const DEFAULTS = { stream: 'oddsbase:batches', maxLen: 1000, maxPendingBytes: 64 * 1024 * 1024 };
/** A read blocks at most this long, so that a silent dead connection is noticed and close is prompt. */
const BLOCK_MS = 2000;
/** Entries taken per read. */
const READ_COUNT = 100;

/**
 * The cluster bus: each committed batch is appended once to a Redis stream (XADD with a bounded
 * MAXLEN), and every other node reads the stream on a connection of its own (XREAD BLOCK).
 *
 * Why a stream rather than pub/sub: pub/sub delivers only to connections open at the moment, and
 * Redis disconnects a subscriber whose output buffer passes its limit, so every dropped connection
 * and every slow node would cost a read of the store. A stream keeps the last `maxLen` batches: a
 * node that reconnects, or reads slowly, goes on from its last entry id and misses nothing unless
 * it fell further behind than the stream holds. Then, or after Redis restarted empty, the next
 * batch it reads has a `fromId` past its last `headId`: the Bus contract's gap detection, on which
 * the listeners read the missing range from the store before applying anything newer.
 *
 * On the publishing node the listeners get the batch synchronously, as on the memory bus; the node
 * skips its own entries in the stream. Publishing never waits on Redis and never throws: while
 * Redis is unreachable or more than `maxPendingBytes` wait, batches are dropped (at most once).
 */
export class RedisBus implements Bus {
  private readonly listeners = new Set<BatchListener>();
  /** The entry of the batch being committed (`prepare`), made while the store works. */
  private prepared: { batch: CommittedBatch; entry: Buffer } | undefined;
  private readonly node = randomUUID();
  private readonly opts: Required<Omit<RedisBusOptions, 'redis' | 'driver'>>;
  private readonly pub: Redis;
  private readonly sub: Redis;
  private pendingBytes = 0;
  /** Set while publishes fail, so that an outage is reported once, not once per batch. */
  private failing = false;
  private closed = false;
  private readonly reading: Promise<void>;
  private markReady!: () => void;
  private readonly started = new Promise<void>((resolve) => (this.markReady = resolve));
  /** Batches this node dropped instead of publishing (Redis away or too slow). */
  dropped = 0;

  constructor(options: RedisBusOptions) {
    this.opts = { ...DEFAULTS, onError: () => {}, ...options };
    const name = options.redis?.connectionName ?? 'oddsbase';
    this.pub = new options.driver(options.url, {
      ...options.redis,
      connectionName: `${name}:bus-pub`,
      // Fail at once while disconnected: publish must not queue without bound.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
    });
    this.sub = new options.driver(options.url, {
      ...options.redis,
      connectionName: `${name}:bus-sub`,
      maxRetriesPerRequest: null,
    });
    this.watch(this.pub, 'publishing');
    this.watch(this.sub, 'reading');
    this.reading = this.read();
  }

  /**
   * Resolves once the node reads the stream from its current end (what is published after it is
   * received) and its publishing connection is up (what it publishes reaches the others).
   */
  ready(): Promise<void> {
    const publishing =
      this.pub.status === 'ready' || this.closed
        ? Promise.resolve()
        : new Promise<void>((resolve) => {
            this.pub.once('ready', () => resolve());
            this.pub.once('end', () => resolve());
          });
    return Promise.all([this.started, publishing]).then(() => undefined);
  }

  prepare(batch: CommittedBatch): void {
    if (!this.closed) this.prepared = { batch, entry: encodeBatch(batch) };
  }

  publish(batch: CommittedBatch): void {
    for (const listener of this.listeners) this.deliver(listener, batch);
    const prepared = this.prepared;
    this.prepared = undefined;
    if (this.closed) return;
    // Bytes: given a string, ioredis measures its UTF-8 length, joins it into the command's text
    // and the socket encodes that again (about 2 µs a row of a 2,000-row batch).
    const entry = prepared?.batch === batch ? prepared.entry : encodeBatch(batch);
    const bytes = entry.length;
    if (this.pendingBytes + bytes > this.opts.maxPendingBytes) {
      this.dropped++;
      this.fail(
        new Error(
          `Redis bus: ${this.pendingBytes} bytes wait for Redis; batch ${batch.fromId}..${batch.headId} dropped`,
        ),
      );
      return;
    }
    this.pendingBytes += bytes;
    this.pub.xadd(this.opts.stream, 'MAXLEN', '~', this.opts.maxLen, '*', 'n', this.node, 'b', entry).then(
      () => {
        this.pendingBytes -= bytes;
        this.failing = false;
      },
      (err: unknown) => {
        this.pendingBytes -= bytes;
        this.dropped++;
        this.fail(err);
      },
    );
  }

  subscribe(listener: BatchListener): () => void {
    const own: BatchListener = (b) => listener(b);
    this.listeners.add(own);
    return () => this.listeners.delete(own);
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.listeners.clear();
    this.markReady();
    this.sub.disconnect();
    await this.reading;
    // Lets the appends already sent finish.
    await this.pub.quit().catch(() => this.pub.disconnect());
  }

  private deliver(listener: BatchListener, batch: CommittedBatch): void {
    try {
      listener(batch);
    } catch (err) {
      this.opts.onError(err);
    }
  }

  /** Reports a connection's first error of an outage; ioredis reconnects on its own. */
  private watch(conn: Redis, role: string): void {
    let down = false;
    const report = (why: string) => {
      if (down || this.closed) return;
      down = true;
      this.opts.onError(new Error(`Redis bus, ${role} connection: ${why}`));
    };
    conn.on('error', (err: Error) => report(err.message));
    conn.on('close', () => report('closed; reconnecting'));
    conn.on('ready', () => (down = false));
  }

  private fail(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.opts.onError(err);
  }

  /** The read loop: from the stream's end at start, then entry after entry; reconnects are ioredis's. */
  private async read(): Promise<void> {
    let last: string | undefined;
    let reported = false;
    while (!this.closed) {
      try {
        if (last === undefined) {
          const tail = (await this.sub.xrevrange(this.opts.stream, '+', '-', 'COUNT', 1)) as [string, string[]][];
          last = tail[0]?.[0] ?? '0-0';
          this.markReady();
        }
        // Read as bytes: the node's own entries (all of them on the writer) are skipped without
        // making a string of their batches.
        const res = (await this.sub.xreadBuffer(
          'COUNT',
          READ_COUNT,
          'BLOCK',
          BLOCK_MS,
          'STREAMS',
          this.opts.stream,
          last,
        )) as [Buffer, [Buffer, Buffer[]][]][] | null;
        reported = false;
        for (const [id, fields] of res?.[0]?.[1] ?? []) {
          last = id.toString();
          this.receive(fields);
        }
      } catch (err) {
        if (this.closed) break;
        if (!reported) this.opts.onError(err);
        reported = true;
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  private receive(fields: Buffer[]): void {
    // Fields alternate name, value: a name is at an even index.
    const at = (name: string) => {
      const i = fields.findIndex((f, j) => j % 2 === 0 && f.toString() === name);
      return i < 0 ? undefined : fields[i + 1]!.toString();
    };
    if (at('n') === this.node) return;
    let batch: CommittedBatch;
    try {
      batch = decodeBatch(at('b') ?? '');
    } catch (err) {
      this.opts.onError(err);
      return;
    }
    for (const listener of this.listeners) this.deliver(listener, batch);
  }
}
