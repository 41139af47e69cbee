import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import type { Socket } from 'node:net';
import { test } from 'node:test';
import { SendGuard } from '../../src/http/send-guard.ts';
import { nth } from '../helpers/nth.ts';

/** What the guard reads of a socket: its unsent bytes, libuv's queue, and destroy. */
class FakeSocket extends EventEmitter {
  writableLength = 0;
  bytesWritten = 0;
  destroyed = false;
  remoteAddress = '127.0.0.1';
  _handle = { writeQueueSize: 0 };

  /** The server writes `n` more bytes, which sit unsent. */
  send(n: number): void {
    this.writableLength += n;
    this.bytesWritten += n;
    this._handle.writeQueueSize += n;
  }

  /** The client reads `n` bytes: the kernel takes them off libuv's queue. */
  read(n: number): void {
    this._handle.writeQueueSize -= n;
    if (this._handle.writeQueueSize === 0) this.writableLength = 0;
  }

  destroy(): void {
    this.destroyed = true;
  }
}

function setup(opts: { stallMs?: number; totalBytes?: number; connectionBytes?: number } = {}) {
  let t = 0;
  const closed: string[] = [];
  const guard = new SendGuard(
    {
      stallMs: opts.stallMs ?? 10_000,
      totalBytes: opts.totalBytes ?? 1e9,
      connectionBytes: opts.connectionBytes ?? 1e9,
    },
    (_fields, message) => closed.push(message),
    () => t,
  );
  const sockets = new Map<string, FakeSocket>();
  const socket = (name: string) => {
    const s = new FakeSocket();
    sockets.set(name, s);
    guard.watch(s as unknown as Socket);
    return s;
  };
  const at = (ms: number) => {
    t = ms;
    guard.check();
  };
  const alive = () => [...sockets].filter(([, s]) => !s.destroyed).map(([n]) => n);
  return { guard, socket, at, alive, closed };
}

test('a connection whose unsent bytes do not move for the timeout is destroyed; readers are not', (t) => {
  const { guard, socket, at, alive } = setup({ stallMs: 10_000 });
  t.after(() => guard.close());
  const idle = socket('idle');
  const stalled = socket('stalled');
  const slow = socket('slow');
  void idle;
  stalled.send(2_000_000);
  slow.send(2_000_000);
  for (let ms = 0; ms <= 9_000; ms += 1000) {
    slow.read(10_000);
    at(ms);
  }
  assert.deepEqual(alive(), ['idle', 'stalled', 'slow']);
  slow.read(10_000);
  at(10_000);
  assert.deepEqual(alive(), ['idle', 'slow'], 'no progress for 10 s: closed');
  // The slow reader has taken 12 s so far and goes on.
  for (let ms = 11_000; ms <= 30_000; ms += 1000) {
    slow.read(10_000);
    at(ms);
  }
  assert.deepEqual(alive(), ['idle', 'slow']);
  assert.equal(guard.stats().closedStalled, 1);
});

test('new bytes written restart the clock: the server, not the reader, was the one waiting', (t) => {
  const { guard, socket, at, alive } = setup({ stallMs: 5000 });
  t.after(() => guard.close());
  const s = socket('s');
  s.send(100_000);
  at(0);
  at(4000);
  s.send(100_000);
  at(8000);
  assert.deepEqual(alive(), ['s']);
  at(13_000);
  assert.deepEqual(alive(), []);
});

test('over the total budget, connections without progress go, longest stalled first, until the rest fit', (t) => {
  const { guard, socket, at, alive, closed } = setup({ totalBytes: 5_000_000 });
  t.after(() => guard.close());
  const reader = socket('reader');
  const a = socket('a');
  const b = socket('b');
  const c = socket('c');
  reader.send(3_000_000);
  a.send(1_000_000);
  at(0);
  b.send(1_000_000);
  reader.read(1000);
  at(1000);
  c.send(1_000_000);
  reader.read(1000);
  // 6 MB unsent: a has not moved for 2 s, b for 1 s, c is new and the reader reads.
  at(2000);
  assert.deepEqual(alive(), ['reader', 'b', 'c'], 'a, stalled longest, goes; then the rest fit');
  assert.equal(guard.stats().closedOverBudget, 1);
  assert.match(nth(closed, 0), /total send budget/);
  // A reader is never shed for the budget, even the largest.
  reader.send(4_000_000);
  at(3000);
  reader.read(1000);
  at(4000);
  assert.deepEqual(alive(), ['reader']);
});

test('one connection may not hold more than its share without progress', (t) => {
  const { guard, socket, at, alive } = setup({ connectionBytes: 4_000_000 });
  t.after(() => guard.close());
  const big = socket('big');
  const bigReader = socket('bigReader');
  big.send(6_000_000);
  bigReader.send(6_000_000);
  at(0);
  bigReader.read(64_000);
  at(1000);
  assert.deepEqual(alive(), ['big', 'bigReader'], 'one check without progress is no proof of a stall');
  bigReader.read(64_000);
  at(2000);
  assert.deepEqual(alive(), ['bigReader'], 'over its share and not moving for the grace: closed');
});

test('a reader that shows no progress between some checks but reads within the grace is never closed', (t) => {
  const { guard, socket, at, alive } = setup({ connectionBytes: 4_000_000, totalBytes: 5_000_000 });
  t.after(() => guard.close());
  const reader = socket('reader');
  reader.send(20_000_000);
  // Checks four times a second; the reader takes a large read every 1.5 s (a loaded machine).
  for (let ms = 0; ms <= 30_000; ms += 250) {
    if (ms % 1500 === 0) reader.read(300_000);
    at(ms);
  }
  assert.deepEqual(alive(), ['reader']);
  assert.equal(guard.stats().closedOverBudget, 0);
});

test('responses to pipelined requests count toward their connection until they get its socket', (t) => {
  const { guard, socket, at, alive } = setup({ connectionBytes: 4_000_000 });
  t.after(() => guard.close());
  const s = socket('pipelining');
  s.send(1_000_000);
  // Three more answers wait behind the first, their bytes kept aside by node.
  const waiting = [0, 1, 2].map(() => ({ socket: null as unknown, destroyed: false, writableLength: 1_500_000 }));
  for (const res of waiting) guard.track({ socket: s } as never, res as never);
  assert.equal(guard.stats().unsentBytes, 5_500_000);
  // The current answer has a socket: it is the socket's bytes that count for it.
  guard.track({ socket: s } as never, { socket: s, destroyed: false, writableLength: 1_000_000 } as never);
  assert.equal(guard.stats().unsentBytes, 5_500_000);
  at(0);
  at(2000);
  assert.deepEqual(alive(), [], '5.5 MB without progress is over its 4 MB share');
});
