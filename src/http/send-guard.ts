import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

export interface SendGuardOptions {
  /** A connection whose unsent bytes see no progress for this long is destroyed. */
  stallMs: number;
  /**
   * Unsent bytes all connections together may hold. Past it, connections that made no progress
   * since the last check are destroyed, the longest stalled first, until the rest fit.
   */
  totalBytes: number;
  /** Unsent bytes one connection may hold without progress: past it, it goes at the next check. */
  connectionBytes: number;
}

/** No progress for this long (or the send timeout, if shorter) lets a budget close a connection. */
export const BUDGET_GRACE_MS = 2000;

export type GuardLog = (fields: Record<string, unknown>, message: string) => void;

interface Watched {
  /** What the connection held at the last check, and when that last changed. */
  pending: number;
  queued: number;
  written: number;
  since: number;
  /**
   * Responses to pipelined requests, waiting behind an earlier one: node keeps their bytes aside
   * until they get the socket, so the socket's own counts do not show them.
   */
  waiting: ServerResponse[];
}

/**
 * Bytes libuv still holds for a socket: the only count that moves while one large write drains,
 * since `writableLength` drops only when a whole write completes.
 */
function queuedBytes(socket: Socket): number {
  return (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;
}

/**
 * Bytes that responses' body streams hold besides what they have written into the response: a
 * stream writes no further than the response's high-water mark (16 KB) while the socket is busy or
 * not yet the response's, so the rest of a body made of parts (src/http/route-kit.ts `sendParts`)
 * sits in the stream, where neither the socket's nor the response's counts show it.
 */
const heldByBody = new WeakMap<ServerResponse, () => number>();

/** Makes the guard count what `res`'s body stream still holds (`held` reads it). */
export function countHeldBody(res: ServerResponse, held: () => number): void {
  heldByBody.set(res, held);
}

function held(res: ServerResponse | null | undefined): number {
  const read = res ? heldByBody.get(res) : undefined;
  return read ? read() : 0;
}

/**
 * Bytes a connection holds unsent: the socket's and its current response's body stream's, and
 * those of responses waiting for it. A waiting response that got the socket has passed its bytes to
 * it, and one destroyed has dropped them.
 */
function unsentBytes(socket: Socket, w: Watched): number {
  // node:http's current response of a connection (what `res.assignSocket` sets and detach clears).
  let bytes = socket.writableLength + held((socket as { _httpMessage?: ServerResponse | null })._httpMessage);
  if (w.waiting.length > 0) {
    w.waiting = w.waiting.filter((res) => res.socket === null && !res.destroyed);
    for (const res of w.waiting) bytes += res.writableLength + held(res);
  }
  return bytes;
}

/**
 * Frees the memory of clients that stop reading. Node's own timeouts cover slow requests and idle
 * connections, not a response that sits unread: its bytes stay in the process for as long as the
 * connection lives. One timer checks every connection four times a second; a connection with
 * unsent bytes that has made no progress (nothing taken by the kernel, nothing new written) for
 * `stallMs` is destroyed, which releases its responses. Sooner, after `BUDGET_GRACE_MS` without
 * progress, when it holds more than its share, or when such connections together hold more than
 * the budget (the longest stalled go first). Per request there is one check (is the response waiting behind another on its
 * connection?), and connections that keep reading are never touched, however slow or large their
 * responses.
 */
export class SendGuard {
  private readonly sockets = new Map<Socket, Watched>();
  private readonly periodMs: number;
  /**
   * How long a connection must have made no progress before a budget may close it. A reader that is
   * reading can show no progress between two checks (a full kernel buffer read in bursts, a loaded
   * machine): one check period was too short a proof, and closed such readers.
   */
  private readonly graceMs: number;
  private timer: NodeJS.Timeout | undefined;
  private stalled = 0;
  private overBudget = 0;

  constructor(
    private readonly opts: SendGuardOptions,
    private readonly log: GuardLog = () => {},
    private readonly now: () => number = Date.now,
  ) {
    // Often enough that clients which stop reading cannot pile up far past the budget between two
    // checks (100 new 1.9 MB answers a second add 48 MB in 250 ms), yet cheap: a few property reads
    // per connection.
    this.periodMs = Math.min(250, Math.max(50, Math.floor(opts.stallMs / 4)));
    this.graceMs = Math.min(opts.stallMs, BUDGET_GRACE_MS);
  }

  watch(socket: Socket): void {
    this.sockets.set(socket, { pending: 0, queued: 0, written: 0, since: this.now(), waiting: [] });
    socket.once('close', () => this.sockets.delete(socket));
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), this.periodMs);
      this.timer.unref();
    }
  }

  /** Notes a response that must wait for an earlier one on its connection (a pipelined request). */
  track(req: IncomingMessage, res: ServerResponse): void {
    if (res.socket === null) this.sockets.get(req.socket)?.waiting.push(res);
  }

  /** Connections watched, their unsent bytes now, and connections destroyed so far, by reason. */
  stats(): { connections: number; unsentBytes: number; closedStalled: number; closedOverBudget: number } {
    let unsent = 0;
    for (const [socket, w] of this.sockets) unsent += unsentBytes(socket, w);
    return {
      connections: this.sockets.size,
      unsentBytes: unsent,
      closedStalled: this.stalled,
      closedOverBudget: this.overBudget,
    };
  }

  check(): void {
    const t = this.now();
    let total = 0;
    const idle: [Socket, Watched][] = [];
    for (const [socket, w] of this.sockets) {
      if (socket.destroyed) continue;
      const pending = unsentBytes(socket, w);
      if (pending === 0) {
        w.pending = 0;
        continue;
      }
      const queued = queuedBytes(socket);
      const written = socket.bytesWritten;
      if (pending !== w.pending || queued !== w.queued || written !== w.written) {
        w.pending = pending;
        w.queued = queued;
        w.written = written;
        w.since = t;
      }
      const still = t - w.since;
      if (still >= this.opts.stallMs) {
        this.stalled++;
        this.drop(socket, pending, still, 'no progress within the send timeout');
      } else if (still >= this.graceMs && pending > this.opts.connectionBytes) {
        this.overBudget++;
        this.drop(socket, pending, still, 'over the per-connection send budget without progress');
      } else {
        total += pending;
        if (still >= this.graceMs) idle.push([socket, w]);
      }
    }
    if (total <= this.opts.totalBytes) return;
    idle.sort((a, b) => a[1].since - b[1].since);
    for (const [socket, w] of idle) {
      if (total <= this.opts.totalBytes) break;
      total -= w.pending;
      this.overBudget++;
      this.drop(socket, w.pending, t - w.since, 'over the total send budget without progress');
    }
  }

  close(): void {
    clearInterval(this.timer);
    this.timer = undefined;
  }

  private drop(socket: Socket, unsent: number, stillMs: number, reason: string): void {
    this.log({ remote: socket.remoteAddress, unsentBytes: unsent, stalledMs: stillMs }, `connection closed: ${reason}`);
    socket.destroy();
  }
}
