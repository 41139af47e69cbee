import type { RawData } from 'ws';

/**
 * The bounds on what a client sends on a stream, checked before a message is parsed, so that no
 * message costs more than a scan of its text: a size (MAX_CLIENT_MESSAGE), a nesting depth counted
 * without recursion (JSON.parse and everything after it recurse per level: 100,000 levels overflowed
 * the stack at about 30 ms a message), and a rate per connection.
 */

/** Largest client message accepted; a subscribe with 500 ids in every list fits. */
export const MAX_CLIENT_MESSAGE = 64 * 1024;

/**
 * Larger frames are refused by the WebSocket layer itself (close 1009 with no message before it);
 * between the two bounds the server says why before it closes.
 */
export const MAX_FRAME = 4 * MAX_CLIENT_MESSAGE;

/** Deepest nesting of arrays and objects in a message; a subscribe needs 3. */
export const MAX_MESSAGE_DEPTH = 32;

/**
 * Messages per second a connection may send, and the burst above the plan's subscriptions per
 * connection (a client that reconnects re-sends every subscription at once, spec). A message costs
 * one token per started 8 KB.
 */
export const MESSAGE_RATE = { perSecond: 50, burstAboveSubscriptions: 64, bytesPerToken: 8 * 1024 };

/** A token bucket: `burst` tokens, refilled at `perSecond`, on a monotonic clock. */
export class MessageBucket {
  private tokens: number;
  private last: number;

  constructor(
    readonly perSecond: number,
    readonly burst: number,
    private readonly now: () => number = () => performance.now(),
  ) {
    this.tokens = burst;
    this.last = now();
  }

  /** Takes the cost of a message of `bytes`; false when the bucket cannot pay it. */
  take(bytes: number): boolean {
    const t = this.now();
    this.tokens = Math.min(this.burst, this.tokens + ((t - this.last) / 1000) * this.perSecond);
    this.last = t;
    const cost = Math.max(1, Math.ceil(bytes / MESSAGE_RATE.bytesPerToken));
    if (this.tokens < cost) return false;
    this.tokens -= cost;
    return true;
  }
}

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, by one pass over its characters
 * (brackets inside strings do not count); malformed text is left to JSON.parse.
 */
export function nestsDeeperThan(text: string, limit: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x5b || c === 0x7b) {
      if (++depth > limit) return true;
    } else if (c === 0x5d || c === 0x7d) depth--;
  }
  return false;
}

/** The bytes of a message as ws hands it over. */
export function messageBytes(data: RawData): Buffer {
  if (Buffer.isBuffer(data)) return data;
  return Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data);
}
