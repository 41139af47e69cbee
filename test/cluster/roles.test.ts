import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { hashKey } from '../../src/access/keys.ts';
import { openAccounts } from '../../src/compose.ts';
import { until } from '../contract/bus.contract.ts';
import { batch, nbaEvent, nbaPrices, price, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect } from '../helpers/ws-client.ts';
import { type PostgresService, startPostgres } from './services/postgres.ts';
import { startRedis } from './services/redis.ts';

/**
 * One writer and API nodes (`--role api`) on one PostgreSQL database and one Redis: an API node
 * loads its board from the database and follows the writer through the bus.
 */
const redis = await startRedis();
let postgres: PostgresService;
let databaseUrl: string;
let writer: TestServer;
const E1 = 'a'.repeat(32);
const E2 = 'b'.repeat(32);
const at = () => new Date().toISOString();
const snapshot = `/api/v2/sports/4/events/${today()}`;

before(async () => {
  postgres = await startPostgres();
  databaseUrl = await postgres.createDatabase();
  writer = await startTestServer({ databaseUrl, redisUrl: redis.url, role: 'writer' });
  await writer.server.ledger.apply(
    batch(at(), [{ kind: 'event', event: nbaEvent(E1) }, { kind: 'event', event: nbaEvent(E2) }, ...nbaPrices(E1)]),
  );
});
after(async () => {
  await writer.close();
  await postgres.stop();
  await redis.close();
});

const apiNode = () => startTestServer({ databaseUrl, redisUrl: redis.url, role: 'api' });
const move = (eventId: string, value: number) =>
  writer.server.ledger.apply(
    batch(at(), [price(eventId, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: value })]),
  );
const caughtUp = (node: TestServer) =>
  until(() => node.server.board.head === writer.server.board.head, 10_000, 'the API node to follow the writer');

describe('an API node', () => {
  it('serves the same events snapshot and markets delta as the writer at the same head', async (t) => {
    const node = await apiNode();
    t.after(() => node.close());
    const cursor = (await writer.get(snapshot)).body.meta.delta_last_id;
    await move(E1, 120);
    await writer.server.ledger.apply(batch(at(), nbaPrices(E2)));
    await caughtUp(node);
    const [w, a] = [await writer.get(snapshot), await node.get(snapshot)];
    assert.equal(w.status, 200);
    assert.equal(a.status, 200);
    assert.equal(a.body.events.length, 2);
    assert.deepEqual(a.body, w.body);
    const delta = `/api/v2/markets/delta?last_id=${cursor}`;
    const [wd, ad] = [await writer.get(delta), await node.get(delta)];
    assert.equal(wd.status, 200);
    assert.ok(wd.body.deltas.length > 0);
    assert.deepEqual(ad.body, wd.body);
    const ready = await node.get('/readyz', {});
    assert.equal(ready.status, 200);
    assert.equal(ready.body.follow, 'following');
    assert.equal(ready.body.feed, 'bus');
  });

  it('shows a price committed on the writer in REST and on its WebSocket stream', async (t) => {
    const node = await apiNode();
    t.after(() => node.close());
    const ws = await connect(`${node.url.replace('http', 'ws')}/api/v2/ws/markets?event_ids=${E1}`, {
      'X-Service-Key': node.key,
    });
    t.after(() => ws.close());
    await move(E1, 177);
    const frame = await ws.next((m) => m?.meta?.type === 'market_price', 10_000);
    assert.equal(frame.data.event_id, E1);
    assert.equal(Number(frame.data.price), 177);
    await caughtUp(node);
    const res = await node.get(`/api/v2/events/${E1}`);
    assert.equal(res.status, 200);
    assert.match(JSON.stringify(res.body), /177/);
  });

  it('started while the writer commits: skips what it loaded, holds no hole and no repeat', async (t) => {
    let moving = true;
    const moves = (async () => {
      for (let i = 0; moving; i++) {
        await move(E2, 200 + (i % 50));
        await new Promise((r) => setTimeout(r, 5));
      }
    })();
    const node = await apiNode();
    t.after(() => node.close());
    await new Promise((r) => setTimeout(r, 300));
    moving = false;
    await moves;
    await caughtUp(node);
    const all = '/api/v2/markets/delta?last_id=0&limit=1000';
    const ids = async (s: TestServer) => {
      const out: number[] = [];
      let path = all;
      for (;;) {
        const r = await s.get(path);
        assert.equal(r.status, 200);
        out.push(...r.body.deltas.map((row: { id: number }) => row.id));
        if (!r.body.meta.has_more) return out;
        path = `/api/v2/markets/delta?last_id=${r.body.meta.delta_last_id}&limit=1000`;
      }
    };
    const expected = await ids(writer);
    assert.deepEqual(await ids(node), expected);
    assert.deepEqual((await node.get(snapshot)).body, (await writer.get(snapshot)).body);
  });

  it('fills from the store what Redis lost while it restarted', async (t) => {
    const node = await apiNode();
    t.after(() => node.close());
    await caughtUp(node);
    await redis.stop();
    for (let i = 0; i < 5; i++) await move(E1, 300 + i);
    const lostUpTo = writer.server.board.head;
    await redis.start();
    for (let i = 0; node.server.board.head <= lostUpTo; i++) {
      await move(E1, 310 + (i % 20));
      await new Promise((r) => setTimeout(r, 50));
      assert.ok(i < 400, 'the API node never moved past the batches Redis lost');
    }
    await caughtUp(node);
    assert.deepEqual((await node.get(snapshot)).body, (await writer.get(snapshot)).body);
  });

  it('closes a stream on an API node when the key is revoked in the database, as the CLI does', async (t) => {
    const node = await apiNode();
    t.after(() => node.close());
    const key = await node.newKey('ultra');
    const ws = await connect(`${node.url.replace('http', 'ws')}/api/v2/ws/markets`, { 'X-Service-Key': key });
    t.after(() => ws.close());
    const accounts = await openAccounts({ dataDir: node.dataDir, databaseUrl });
    await accounts.keys.revoke({ hash: hashKey(key) }, at());
    await accounts.close();
    const closed = await Promise.race([ws.closed, new Promise((r) => setTimeout(() => r('still open'), 5000))]);
    assert.deepEqual(closed, { code: 1008, reason: 'policy_violation:key_revoked' });
  });

  it('takes off its board the events the writer archived, and answers for them as the writer does', async (t) => {
    const node = await apiNode();
    t.after(() => node.close());
    const E3 = 'c'.repeat(32);
    await writer.server.ledger.apply(
      batch(at(), [
        { kind: 'event', event: nbaEvent(E3) },
        ...nbaPrices(E3),
        { kind: 'score', event_id: E3, score: score(E3, 'STATUS_FINAL', 101, 99) },
      ]),
    );
    await caughtUp(node);
    assert.ok(node.server.board.events.has(E3));
    // No change row carries an archiving: the node reads it from the store.
    assert.equal(await writer.server.ledger.archiveFinished(Date.now() + 1, 0), 1);
    assert.equal(writer.server.board.events.has(E3), false);
    await until(() => !node.server.board.events.has(E3), 15_000, 'the API node to drop the archived event');
    // One more commit, so that both answer at the same head.
    await move(E1, 133);
    await caughtUp(node);
    for (const path of [`/api/v2/events/${E3}`, snapshot, `/api/v2/events/${E3}/closing`]) {
      const [w, a] = [await writer.get(path), await node.get(path)];
      assert.equal(w.status, 200, path);
      assert.deepEqual([a.status, a.body], [w.status, w.body], path);
    }
    // An archived event's markets list is no longer served, on the writer as on the node.
    const markets = `/api/v2/events/${E3}/markets`;
    assert.deepEqual((await node.get(markets)).status, (await writer.get(markets)).status);
    assert.deepEqual(node.server.board.archivedHeaders.get(E3), writer.server.board.archivedHeaders.get(E3));
  });

  it('has no ledger: writes are refused where the code asks for one', async (t) => {
    const node = await apiNode();
    t.after(() => node.close());
    assert.throws(() => node.server.ledger, /an API node \(--role api\) has no ledger/);
  });
});

describe('a role without the cluster', () => {
  for (const role of ['api', 'writer'] as const) {
    it(`--role ${role} without a database or Redis URL stops the start in one line`, async () => {
      await assert.rejects(
        startTestServer({ role, redisUrl: redis.url }),
        new RegExp(`--role ${role} needs a PostgreSQL store and a Redis bus .*--database-url \\(env DATABASE_URL\\)`),
      );
      await assert.rejects(
        startTestServer({ role, databaseUrl }),
        new RegExp(`--role ${role} needs .*give --redis-url \\(env REDIS_URL\\), or serve with --role all`),
      );
    });
  }
});
