import { randomUUID } from 'node:crypto';
import type { Redis, RedisOptions } from 'ioredis';
import type { ConnectionSlots } from './connection-slots.ts';

export interface RedisConnectionSlotsOptions {
  url: string;
  /** The ioredis client class, handed in so that only a process that uses Redis loads ioredis. */
  driver: typeof Redis;
  /** Prefix of the Redis keys; the nodes of one cluster share it. */
  prefix?: string;
  /** How long a node's slots count after it last renewed them (it renews every third of it). */
  leaseMs?: number;
  /** How long an upgrade waits for Redis before it decides on this node's count alone. */
  timeoutMs?: number;
  onError?: (err: unknown) => void;
  redis?: RedisOptions;
}

/**
 * Takes a slot atomically: the sum of the key's slots on every node whose lease is alive (fields of
 * dead nodes are dropped), this node's own as it says (its count, this take included), and the
 * node's field set to it when the sum is within the cap. KEYS: the key's hash. ARGV: node, cap,
 * lease key prefix, own count with this take, lease ms. Returns {1 taken or 0 refused, the other
 * nodes' connections}.
 */
const TAKE_SCRIPT = `
local fields = redis.call('HGETALL', KEYS[1])
local others = 0
for i = 1, #fields, 2 do
  local n = fields[i]
  if n ~= ARGV[1] then
    if redis.call('EXISTS', ARGV[3] .. n) == 1 then
      others = others + tonumber(fields[i + 1])
    else
      redis.call('HDEL', KEYS[1], n)
    end
  end
end
local own = tonumber(ARGV[4])
if others + own > tonumber(ARGV[2]) then return {0, others} end
redis.call('HSET', KEYS[1], ARGV[1], own)
redis.call('PEXPIRE', KEYS[1], ARGV[5])
redis.call('SET', ARGV[3] .. ARGV[1], 1, 'PX', ARGV[5])
return {1, others}
`;

const LEASE_MS = 15_000;
const TIMEOUT_MS = 500;

/**
 * A key's WebSocket connections counted over every node, through Redis: one hash per key with a
 * field per node (its open connections), and a lease per node that the node renews every third of
 * `leaseMs`, re-stating all its counts (so a Redis restarted empty is filled again). A node that
 * dies stops renewing: its connections stop counting when its lease ends.
 *
 * The upgrade waits for one script call (a round trip; no request waits on it). When Redis does
 * not answer within `timeoutMs` or is away, the node decides on its own connections alone, as the
 * embedded server does. Giving back is sent in the background.
 *
 * Overshoot: none while Redis answers. While it is away, each node allows the whole cap: up to
 * N × cap over N nodes. A node cut off from Redis keeps its connections, and once its lease ends
 * the others no longer count them: up to cap more per cut-off node, until clients close.
 */
export class RedisConnectionSlots implements ConnectionSlots {
  private readonly node = randomUUID();
  private readonly own = new Map<string, number>();
  /** Other nodes' connections of a key as the last take read them. */
  private readonly others = new Map<string, number>();
  private readonly changed = new Set<string>();
  private readonly cmd: Redis & { takeSlot(...args: (string | number)[]): Promise<[number, number]> };
  private readonly prefix: string;
  private readonly leaseMs: number;
  private readonly onError: (err: unknown) => void;
  private readonly timer: NodeJS.Timeout;
  private flushing = false;
  private failing = false;

  constructor(options: RedisConnectionSlotsOptions) {
    this.prefix = options.prefix ?? 'oddsbase:ws:';
    this.leaseMs = options.leaseMs ?? LEASE_MS;
    this.onError = options.onError ?? (() => {});
    const name = options.redis?.connectionName ?? 'oddsbase';
    const cmd = new options.driver(options.url, {
      ...options.redis,
      connectionName: `${name}:slots`,
      // An upgrade decides alone rather than wait for a connection that is down.
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      commandTimeout: options.timeoutMs ?? TIMEOUT_MS,
    });
    cmd.defineCommand('takeSlot', { numberOfKeys: 1, lua: TAKE_SCRIPT });
    this.cmd = cmd as typeof this.cmd;
    this.cmd.on('error', (err: Error) => this.fail(err));
    // Back after an outage (perhaps to a Redis restarted empty): the counts are stated again at once.
    this.cmd.on('ready', () => void this.renew());
    this.timer = setInterval(() => void this.renew(), Math.floor(this.leaseMs / 3));
    this.timer.unref();
  }

  async take(keyHash: string, cap: number): Promise<boolean> {
    const mine = this.mine(keyHash) + 1;
    if (mine > cap) return false;
    // Reserved here first, so that takes of this node in flight at once count each other.
    this.own.set(keyHash, mine);
    let answer: [number, number] | undefined;
    if (this.cmd.status === 'ready') {
      answer = await this.cmd
        .takeSlot(this.hashKey(keyHash), this.node, cap, this.leaseKey(''), mine, this.leaseMs)
        .catch((err: unknown) => {
          this.fail(err);
          return undefined;
        });
    }
    if (answer === undefined) return true;
    this.failing = false;
    const [taken, others] = answer;
    this.others.set(keyHash, others);
    if (taken === 1) return true;
    this.give(keyHash);
    return false;
  }

  give(keyHash: string): void {
    const n = this.mine(keyHash) - 1;
    if (n > 0) {
      this.own.set(keyHash, n);
    } else {
      this.own.delete(keyHash);
      this.others.delete(keyHash);
    }
    this.changed.add(keyHash);
    void this.flush();
  }

  count(keyHash: string): number {
    return this.mine(keyHash) + (this.others.get(keyHash) ?? 0);
  }

  async close(): Promise<void> {
    clearInterval(this.timer);
    if (this.cmd.status === 'ready') {
      const out = this.cmd.multi().del(this.leaseKey(this.node));
      for (const keyHash of this.own.keys()) out.hdel(this.hashKey(keyHash), this.node);
      await out.exec().catch(() => {});
    }
    await this.cmd.quit().catch(() => this.cmd.disconnect());
  }

  private mine(keyHash: string): number {
    return this.own.get(keyHash) ?? 0;
  }

  private hashKey(keyHash: string): string {
    return `${this.prefix}key:${keyHash}`;
  }

  private leaseKey(node: string): string {
    return `${this.prefix}node:${node}`;
  }

  /** Sends the counts given back since the last flush. */
  private async flush(): Promise<void> {
    if (this.flushing || this.cmd.status !== 'ready') return;
    this.flushing = true;
    try {
      while (this.changed.size > 0) {
        const keys = [...this.changed];
        this.changed.clear();
        const out = this.cmd.pipeline();
        for (const keyHash of keys) this.state(out, keyHash);
        await out.exec().catch((err: unknown) => {
          // Stated again by the next flush or renewal.
          for (const keyHash of keys) this.changed.add(keyHash);
          throw err;
        });
      }
    } catch (err) {
      this.fail(err);
    } finally {
      this.flushing = false;
    }
  }

  /** Renews the lease and states every count of this node again. */
  private async renew(): Promise<void> {
    if (this.cmd.status !== 'ready') return;
    const out = this.cmd.pipeline().set(this.leaseKey(this.node), 1, 'PX', this.leaseMs);
    const keys = new Set([...this.own.keys(), ...this.changed]);
    this.changed.clear();
    for (const keyHash of keys) this.state(out, keyHash);
    await out.exec().catch((err: unknown) => {
      for (const keyHash of keys) if (this.mine(keyHash) === 0) this.changed.add(keyHash);
      this.fail(err);
    });
  }

  private state(out: ReturnType<Redis['pipeline']>, keyHash: string): void {
    const n = this.mine(keyHash);
    const key = this.hashKey(keyHash);
    if (n > 0) out.hset(key, this.node, n).pexpire(key, this.leaseMs);
    else out.hdel(key, this.node);
  }

  /** Reports the first failure of an outage. */
  private fail(err: unknown): void {
    if (this.failing) return;
    this.failing = true;
    this.onError(err);
  }
}
