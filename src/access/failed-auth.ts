import type { Counters } from './counters/counters.ts';

export interface FailedKeyCheckLimits {
  /** Failed checks per address in one window after which unknown keys are refused. */
  ceiling: number;
  windowMs: number;
  /** Failures answered at once; each later one in the window waits 100 ms more, up to 2 s. */
  slowAfter: number;
  /** Addresses tracked at most; past it the one tracked longest is dropped. */
  maxAddresses: number;
  /** Keys remembered as valid at most; past it the memory starts afresh. */
  maxKnownKeys: number;
}

export const FAILED_KEY_CHECK_LIMITS: FailedKeyCheckLimits = {
  ceiling: 30,
  windowMs: 60_000,
  slowAfter: 5,
  maxAddresses: 10_000,
  maxKnownKeys: 10_000,
};

/** Prefixes of the shared counters: failures of an address, its window's end, keys that passed. */
const FAILED = 'fk:';
const WINDOW = 'fkw:';
const KNOWN = 'fkok:';
/** How long a key that passed a check is remembered by the other nodes. */
const KNOWN_MS = 86_400_000;

/** Whether a counter is one of the failed-key checks': shared between nodes, never worth saving. */
export const isFailedKeyCounter = (key: string): boolean =>
  key.startsWith(FAILED) || key.startsWith(WINDOW) || key.startsWith(KNOWN);

/**
 * Failed key checks per client address, so that guessing keys is bounded in rate, not only slowed.
 * A window opens at an address's first failure. Within it the first `slowAfter` failures are
 * answered at once and later ones more slowly; once `ceiling` is reached the address may present
 * only keys that have passed a check before (their hashes are remembered) until the window ends:
 * any other key is refused unchecked, so a guess made then tells nothing. Clients behind the same
 * address that were already using their keys go on at full speed.
 *
 * Given the counters the nodes of a cluster share (`shared`), the counts, windows and known keys
 * are theirs together: 30 guesses spread over several nodes trip the ceiling as on one. They are
 * read from the local view (no round trip), so nodes may let through the guesses they take in the
 * time one exchange of the counters lasts, beyond the ceiling; and while Redis is away each node
 * counts alone, as the embedded server does. Without `shared` the counts are this process's, in a
 * map bounded by `maxAddresses`.
 */
export class FailedKeyChecks {
  private readonly failures = new Map<string, { count: number; since: number }>();
  private readonly known = new Set<string>();

  constructor(
    readonly limits: FailedKeyCheckLimits = FAILED_KEY_CHECK_LIMITS,
    private readonly now: () => number = Date.now,
    private readonly shared?: Counters,
  ) {}

  /** Whole seconds until `address` may present an unknown key again; 0 when it may now. */
  blockedFor(address: string): number {
    const at = addressKey(address);
    let count: number;
    let until: number;
    if (this.shared) {
      count = this.shared.get(FAILED + at);
      until = this.shared.get(WINDOW + at);
    } else {
      const f = this.failures.get(at);
      count = f?.count ?? 0;
      until = f ? f.since + this.limits.windowMs : 0;
    }
    if (count < this.limits.ceiling) return 0;
    const left = until - this.now();
    return left > 0 ? Math.ceil(left / 1000) : 0;
  }

  /** Whether a key with this hash has passed a check (on any node, when shared). */
  isKnown(keyHash: string): boolean {
    return this.known.has(keyHash) || (this.shared !== undefined && this.shared.get(KNOWN + keyHash) > 0);
  }

  passed(keyHash: string): void {
    if (this.known.has(keyHash)) return;
    if (this.known.size >= this.limits.maxKnownKeys) this.known.clear();
    this.known.add(keyHash);
    this.shared?.set(KNOWN + keyHash, 1, this.now() + KNOWN_MS);
  }

  /** Records a failed check and returns how long to hold its answer, in ms. */
  fail(address: string): number {
    const at = addressKey(address);
    const t = this.now();
    if (this.shared) {
      // The window opens at the address's first failure on any node and ends for all at once.
      let until = this.shared.get(WINDOW + at);
      if (until <= t) {
        until = t + this.limits.windowMs;
        this.shared.set(WINDOW + at, until, until);
      }
      return this.delay(this.shared.incr(FAILED + at, 1, until, this.limits.ceiling));
    }
    let f = this.failures.get(at);
    if (!f || t - f.since >= this.limits.windowMs) {
      // Re-inserted, so the map stays ordered by window start and its first entry is the oldest.
      this.failures.delete(at);
      if (this.failures.size >= this.limits.maxAddresses) {
        this.failures.delete(this.failures.keys().next().value!);
      }
      f = { count: 0, since: t };
      this.failures.set(at, f);
    }
    f.count++;
    return this.delay(f.count);
  }

  /** How long to hold the answer to an address's `count`th failure in its window, in ms. */
  private delay(count: number): number {
    return Math.min(2000, Math.max(0, count - this.limits.slowAfter) * 100);
  }
}

/**
 * The unit an address is counted by: an IPv4 address, or the /64 an IPv6 address belongs to, since
 * one IPv6 client commonly holds a whole /64.
 */
export function addressKey(ip: string): string {
  if (!ip.includes(':') || ip.startsWith('::ffff:')) return ip;
  const [head = '', tail] = ip.split('::');
  const groups = head === '' ? [] : head.split(':');
  if (tail !== undefined) {
    const rest = tail === '' ? [] : tail.split(':');
    groups.push(...Array<string>(Math.max(0, 8 - groups.length - rest.length)).fill('0'), ...rest);
  }
  const prefix = groups.slice(0, 4).map((g) => g.toLowerCase().replace(/^0+(?=.)/, ''));
  return `${prefix.join(':')}::/64`;
}
