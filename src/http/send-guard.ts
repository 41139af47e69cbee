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

export const DEFAULT_SEND_TIMEOUT_MS = 30_000;
export const DEFAULT_SEND_BUDGET_BYTES = 64 * 1024 * 1024;

export type GuardLog = (fields: Record<string, unknown>, message: string) => void;

interface Watched {
  /** What the socket held at the last check, and when that last changed. */
  pending: number;
  queued: number;
  written: number;
  since: number;
}

/**
 * Bytes libuv still holds for a socket: the only count that moves while one large write drains,
 * since `writableLength` drops only when a whole write completes.
 */
function queuedBytes(socket: Socket): number {
  return (socket as unknown as { _handle?: { writeQueueSize?: number } })._handle?.writeQueueSize ?? 0;
}

/**
 * Frees the memory of clients that stop reading. Node's own timeouts cover slow requests and idle
 * connections, not a response that sits unread: its bytes stay in the process for as long as the
 * connection lives. One timer checks every connection a few times per `stallMs`; a connection with
 * unsent bytes that has made no progress (nothing taken by the kernel, nothing new written) for
 * `stallMs`, or that holds more than its share while the total is over budget, is destroyed, which
 * releases the response. Nothing runs per request, and connections that keep reading are never
 * touched, however slow or large their responses.
 */
export class SendGuard {
  private readonly sockets = new Map<Socket, Watched>();
  private readonly periodMs: number;
  private timer: NodeJS.Timeout | undefined;
  private stalled = 0;
  private overBudget = 0;

  constructor(
    private readonly opts: SendGuardOptions,
    private readonly log: GuardLog = () => {},
    private readonly now: () => number = Date.now,
  ) {
    this.periodMs = Math.min(1000, Math.max(50, Math.floor(opts.stallMs / 4)));
  }

  watch(socket: Socket): void {
    this.sockets.set(socket, { pending: 0, queued: 0, written: 0, since: this.now() });
    socket.once('close', () => this.sockets.delete(socket));
    if (!this.timer) {
      this.timer = setInterval(() => this.check(), this.periodMs);
      this.timer.unref();
    }
  }

  /** Connections watched, their unsent bytes now, and connections destroyed so far, by reason. */
  stats(): { connections: number; unsentBytes: number; closedStalled: number; closedOverBudget: number } {
    let unsent = 0;
    for (const socket of this.sockets.keys()) unsent += socket.writableLength;
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
      const pending = socket.writableLength;
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
      } else if (still > 0 && pending > this.opts.connectionBytes) {
        this.overBudget++;
        this.drop(socket, pending, still, 'over the per-connection send budget without progress');
      } else {
        total += pending;
        if (still > 0) idle.push([socket, w]);
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
