import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { FastifyReply } from 'fastify';
import type { BoardView } from '../../src/board/board-view.ts';
import { ByteBudget } from '../../src/perf/byte-budget.ts';
import { ClientGone } from '../../src/projection/errors.ts';
import { type RouteDeps, sendSnapshot } from '../../src/http/route-kit.ts';
import { SnapshotCache } from '../../src/http/snapshot-cache.ts';
import type { TurnRank } from '../../src/perf/turns.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

/** The parts of the route deps, view and reply that sendSnapshot touches, recording turns and builds. */
function harness() {
  const turns: TurnRank[] = [];
  const builds: boolean[] = [];
  const deps = {
    // The trick's keeping ('kept'), whatever ODDSBASE_PLAIN says: the turns follow what is kept.
    cache: new SnapshotCache(new ByteBudget(1 << 20), SIMULATOR_CATALOG, 'kept'),
    turns: { next: async (rank: TurnRank = 'new') => void turns.push(rank) },
  } as unknown as RouteDeps;
  const view = { head: 1 } as { head: number };
  const reply = {
    request: { raw: { destroyed: false, socket: { destroyed: false } }, headers: {} },
    sent: undefined as Buffer | undefined,
    meter() {
      return this;
    },
    header() {
      return this;
    },
    send(body: Buffer) {
      this.sent = body;
      return this;
    },
  };
  const send = () =>
    sendSnapshot(deps, reply as unknown as FastifyReply, 'k', view as unknown as BoardView, (ahead) => {
      builds.push(ahead);
      return { body: Buffer.from(`{"head":${view.head}}`), points: 1, head: view.head };
    });
  return { turns, builds, view, reply, send };
}

test('a first build waits in line; a repeated one goes ahead and is kept; a kept one is sent as it is', async () => {
  const h = harness();
  await h.send();
  assert.deepEqual(h.turns, ['new'], 'a key never asked: its build queues behind the others');
  assert.deepEqual(h.builds, [false]);

  await h.send();
  assert.deepEqual(h.turns, ['new', 'refresh'], 'asked before (only marked the first time): the build goes ahead');
  assert.deepEqual(h.builds, [false, true], 'and its later slices too');

  await h.send();
  assert.deepEqual(h.turns, ['new', 'refresh'], 'kept at the view head: no turn, no build');
  assert.equal(String(h.reply.sent), '{"head":1}');

  h.view.head = 2;
  await h.send();
  assert.deepEqual(h.turns, ['new', 'refresh', 'refresh'], 'kept at an older head: the refresh takes its turn ahead');
  assert.deepEqual(h.builds, [false, true, true]);
  assert.equal(String(h.reply.sent), '{"head":2}');
});

test('a request whose client closed while it waited for its turn is not built', async () => {
  const h = harness();
  // The connection closed: its socket is destroyed (the request alone may be, by a body read to its end).
  h.reply.request.raw.socket.destroyed = true;
  await assert.rejects(h.send(), ClientGone);
  assert.deepEqual(h.turns, ['new']);
  assert.deepEqual(h.builds, [], 'nothing was built for it');
  assert.equal(h.reply.sent, undefined);
});
