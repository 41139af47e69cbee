import assert from 'node:assert/strict';
import { after, it } from 'node:test';
import { until } from '../contract/bus.contract.ts';
import { batch, nbaEvent, nbaPrices, price, today } from '../helpers/fixtures.ts';
import { startTestServer } from '../helpers/server.ts';
import { startPostgres } from './services/postgres.ts';
import { startRedis } from './services/redis.ts';

const redis = await startRedis();
const postgres = await startPostgres();
after(async () => {
  await postgres.stop();
  await redis.close();
});

const E = 'c'.repeat(32);
const at = () => new Date().toISOString();

it('PostgreSQL restarted: the writer waits it out and goes on; the API node serves meanwhile; both say why on /readyz', async (t) => {
  const databaseUrl = await postgres.createDatabase();
  const writer = await startTestServer({ databaseUrl, redisUrl: redis.url, role: 'writer' });
  t.after(() => writer.close());
  const node = await startTestServer({ databaseUrl, redisUrl: redis.url, role: 'api' });
  t.after(() => node.close());
  const ledger = writer.server.ledger;
  await ledger.apply(batch(at(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]));
  const move = (value: number) =>
    ledger.apply(batch(at(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: value })]));
  await move(101);
  const headBefore = ledger.headId;
  await until(() => node.server.board.head === headBefore, 10_000, 'the API node to follow');
  const snapshot = `/api/v2/sports/4/events/${today()}`;
  // A client of the node before the restart: its key is known there.
  assert.equal((await node.get(snapshot)).status, 200);

  const restarting = postgres.restart(5000);
  // While it is down: commits are refused, nothing reaches the board, and /readyz says why.
  await until(() => writer.server.services.readiness.report().ready === false, 10_000, 'the writer to notice');
  await assert.rejects(move(102));
  assert.equal(ledger.headId, headBefore);
  const down = await writer.get('/readyz', {});
  assert.equal(down.status, 503);
  assert.match(down.body.store, /PostgreSQL|commit failed/);
  const served = await node.get(snapshot);
  assert.equal(served.status, 200, `the API node serves what it holds: ${JSON.stringify(served.body)}`);
  await until(() => !node.server.services.readiness.report().ready, 5000, 'the API node to report not ready');
  const nodeDown = await node.get('/readyz', {});
  assert.equal(nodeDown.status, 503);
  assert.match(nodeDown.body.store, /the store does not answer/);
  await restarting;

  // Back: the writer reconnects with its lock and commits again, ids going on from its head.
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await move(103);
      break;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  assert.equal(ledger.headId, headBefore + 1);
  await until(() => writer.server.services.readiness.report().ready, 10_000, 'the writer to be ready again');
  assert.equal((await writer.get('/readyz', {})).status, 200);
  await until(() => node.server.board.head === ledger.headId, 10_000, 'the API node to follow again');
  await until(() => node.server.services.readiness.report().ready, 10_000, 'the API node to be ready again');
  const rows = await writer.server.services.store.readChanges({
    pricesOnly: true,
    afterId: headBefore - 1,
    toId: Number.MAX_SAFE_INTEGER,
    limit: 10,
  });
  assert.deepEqual(
    rows.map((r) => r.id),
    [headBefore, headBefore + 1],
  );
});
