import assert from 'node:assert/strict';
import { EventEmitter } from 'node:events';
import { test } from 'node:test';
import { OPEN_SCOPE } from '../../src/access/plan-scope.ts';
import type { ChangeRecord } from '../../src/changelog/change.ts';
import { BURST_FACTOR, Connection } from '../../src/stream/connection.ts';
import { ScoreFrame } from '../../src/stream/frames.ts';
import { Subscription } from '../../src/stream/subscription.ts';
import { openParams } from '../helpers/stream-params.ts';

/**
 * The connection's queue bounds: a burst a reading client drains is delivered whole, a client that
 * does not read is cut off once its socket has stayed backed up, and a replay is paced by `room`.
 */

const QUEUE = 8;
const HIGH = 1000;
const GRACE = 500;

/** What the connection uses of a socket: its unsent bytes, cork, and the drain event. */
class FakeSocket extends EventEmitter {
  writableLength = 0;
  cork(): void {}
  uncork(): void {}
}

function setup() {
  let clock = 0;
  const socket = new FakeSocket();
  const sent: string[] = [];
  const closes: { code: number; reason: string }[] = [];
  const ws = Object.assign(new EventEmitter(), {
    send: (text: string) => {
      sent.push(text);
      socket.writableLength += text.length;
    },
    close: (code: number, reason: string) => closes.push({ code, reason }),
    terminate: () => {},
  });
  let turns = 0;
  const conn = new Connection(
    ws as never,
    socket as never,
    undefined,
    OPEN_SCOPE,
    'multiplex',
    { queueMessages: QUEUE, highWaterBytes: HIGH, backlogGraceMs: GRACE },
    {
      meter: () => {},
      dropped: () => {},
      overflowed: () => {},
      epochJson: () => '"e"',
      unixNow: () => 0,
      clock: () => clock,
      closed: () => {},
      writeTurn: () => void turns++,
    },
  );
  const params = openParams();
  const sub = new Subscription(conn, 's', 'scores', params, OPEN_SCOPE, false, () => undefined);
  conn.subs.set('s', sub);
  /** Writes turns until nothing more is due now (the socket backed up or the queue empty). */
  const drainTurns = () => {
    while (conn.write());
  };
  return {
    conn,
    sub,
    socket,
    sent,
    closes,
    drainTurns,
    advance: (ms: number) => (clock += ms),
    turns: () => turns,
  };
}

let nextId = 1;
const frame = () => {
  const row: ChangeRecord = {
    id: nextId++,
    kind: 'score',
    event_id: 'e1',
    sport_id: 4,
    at: '2026-11-29T00:00:00Z',
    committed_ms: 0,
    price_id: null,
    affiliate_id: null,
    market_id: null,
    payload: JSON.stringify({ score: { event_status: 'STATUS_IN_PROGRESS', score_away: 1, score_home: 2 } }),
    detail: null,
  };
  return new ScoreFrame(row);
};

test('a burst past the queue that the client drains is delivered whole', () => {
  const { conn, sub, socket, sent, closes, drainTurns } = setup();
  // One turn of the server: three queues' worth at once, before any write.
  for (let i = 0; i < QUEUE * 3; i++) conn.deliver(sub, frame());
  assert.equal(conn.waiting, QUEUE * 3);
  // The client reads as the bytes arrive: the socket never stays backed up.
  for (let i = 0; i < 100 && conn.waiting > 0; i++) {
    drainTurns();
    socket.writableLength = 0;
    socket.emit('drain');
  }
  assert.deepEqual(closes, []);
  assert.equal(sent.length, QUEUE * 3);
  assert.deepEqual(
    sent.map((t) => JSON.parse(t).sub_sequence),
    Array.from({ length: QUEUE * 3 }, (_, i) => i + 1),
  );
});

test('past the burst bound the queue closes the connection even for a reader', () => {
  const { conn, sub, closes } = setup();
  for (let i = 0; i < QUEUE * BURST_FACTOR + 1; i++) conn.deliver(sub, frame());
  assert.deepEqual(closes, [{ code: 1013, reason: 'buffer_overflow:reconnect_and_catchup' }]);
});

test('a client that does not read is cut off once its socket stays backed up past the grace', () => {
  const { conn, sub, sent, closes, drainTurns, advance } = setup();
  // The socket fills and stays full: the client takes nothing.
  for (let i = 0; i < QUEUE * 3; i++) conn.deliver(sub, frame());
  drainTurns();
  const written = sent.length;
  for (let i = 0; i < QUEUE; i++) conn.deliver(sub, frame());
  assert.deepEqual(closes, [], 'backed up for less than the grace: still a burst');
  advance(GRACE);
  conn.deliver(sub, frame());
  assert.deepEqual(closes, [{ code: 1013, reason: 'buffer_overflow:reconnect_and_catchup' }]);
  const err = JSON.parse(sent.at(-1)!);
  assert.equal(err.code, 'buffer_overflow');
  assert.ok(sent.length === written + 1, 'only the error went out after the socket filled');
});

test('a replay waits for room: the next page is read only when most of the last is written', async () => {
  const { conn, sub, socket, drainTurns } = setup();
  for (let i = 0; i < 20; i++) conn.replay(sub, frame());
  let roomy = false;
  const room = conn.room(10).then(() => (roomy = true));
  await Promise.resolve();
  assert.equal(roomy, false);
  // Writes stop at the socket's high-water mark; the client then reads and the rest go out.
  drainTurns();
  assert.ok(conn.waiting > 10 && conn.waiting < 20, `${conn.waiting} waiting after the socket filled`);
  await Promise.resolve();
  assert.equal(roomy, false, 'more than 10 still wait');
  while (conn.waiting >= 10) {
    socket.writableLength = 0;
    drainTurns();
  }
  await room;
  assert.equal(roomy, true);
});

test('a closed connection releases a replay waiting for room', async () => {
  const { conn, sub, advance } = setup();
  for (let i = 0; i < 20; i++) conn.replay(sub, frame());
  const room = conn.room(1);
  advance(1);
  conn.close({ code: 1000, reason: 'bye' });
  await room;
  assert.equal(conn.waiting, 0);
});
