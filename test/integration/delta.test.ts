import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { batch, nbaEvent, nbaPrices, price } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const E1 = 'd1'.repeat(16);
const E2 = 'd2'.repeat(16);
const DELTA_FIELDS = [
  'id',
  'event_id',
  'sport_id',
  'affiliate_id',
  'market_id',
  'market_name',
  'participant_id',
  'participant_type',
  'participant_name',
  'line',
  'price',
  'previous_price',
  'change_type',
  'is_main_line',
  'closed_at',
  'updated_at',
];

let s: TestServer;
let step = 0;

/** Moves every moneyline price of both events: 8 price rows per call. */
async function writeSome(): Promise<void> {
  step++;
  const at = new Date().toISOString();
  const updates = [E1, E2].flatMap((e) =>
    [19, 23].flatMap((aff) => [
      price(e, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: aff,
        price: 100 + step,
      }),
      price(e, {
        market_id: 1,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: aff,
        price: -120 - step,
      }),
    ]),
  );
  await s.server.ledger.apply(batch(at, updates));
}

before(async () => {
  s = await startTestServer();
  const at = new Date().toISOString();
  await s.server.ledger.apply(
    batch(at, [
      { kind: 'event', event: nbaEvent(E1) },
      { kind: 'event', event: { ...nbaEvent(E2), sport_id: 2 } },
      ...nbaPrices(E1),
      ...nbaPrices(E2),
    ]),
  );
  await s.server.ledger.apply(
    batch(at, [
      price(E1, {
        market_id: 41,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        price: 150,
      }),
    ]),
  );
});

after(() => s.close());

const delta = async (q: string) => {
  const r = await s.get(`/api/v2/markets/delta?${q}`);
  return r;
};

describe('/api/v2/markets/delta', () => {
  test('rows carry every Delta row field; the meta carries the cursor as a string', async () => {
    const r = await delta('last_id=0');
    assert.equal(r.status, 200);
    assert.equal(typeof r.body.meta.delta_last_id, 'string');
    assert.equal(r.body.meta.count, r.body.deltas.length);
    assert.equal(r.body.meta.has_more, false);
    for (const row of r.body.deltas) {
      assert.deepEqual(Object.keys(row), DELTA_FIELDS);
      assert.equal(typeof row.is_main_line, 'boolean');
      assert.equal(typeof row.price, 'string');
      assert.equal(row.change_type, 'new');
      assert.equal(row.previous_price, '', 'previous_price is empty when new');
      assert.equal(row.closed_at, '', 'closed_at is empty when active');
    }
    assert.equal(Number(r.body.meta.delta_last_id), s.server.ledger.headId);
  });

  test('the events snapshot cursor bootstraps the feed', async () => {
    const snap = await s.get(`/api/v2/events/${E1}`);
    const cursor = snap.body.meta.delta_last_id;
    await writeSome();
    const r = await delta(`last_id=${cursor}`);
    assert.equal(r.body.meta.count, 8);
    assert.ok(r.body.deltas.every((d: any) => d.change_type === 'price_change' && d.previous_price !== ''));
    assert.ok(r.body.deltas.every((d: any) => d.id > Number(cursor)));
  });

  test('filters: sport_id, event_id, affiliate_ids, and market_ids matched literally', async () => {
    const all = (await delta('last_id=0&limit=5000')).body.deltas;
    const bySport = (await delta('last_id=0&sport_id=2&limit=5000')).body.deltas;
    assert.ok(bySport.length > 0 && bySport.every((d: any) => d.sport_id === 2));
    assert.equal(bySport.length, all.filter((d: any) => d.sport_id === 2).length);
    const byEvent = (await delta(`last_id=0&event_id=${E1}&limit=5000`)).body.deltas;
    assert.ok(byEvent.every((d: any) => d.event_id === E1));
    const byBook = (await delta('last_id=0&affiliate_ids=23&limit=5000')).body.deltas;
    assert.ok(byBook.length > 0 && byBook.every((d: any) => d.affiliate_id === 23));
    const ml = (await delta('last_id=0&market_ids=1&limit=5000')).body.deltas;
    assert.ok(
      ml.every((d: any) => d.market_id === 1),
      'no automatic live variants here',
    );
    const live = (await delta('last_id=0&market_ids=41&limit=5000')).body.deltas;
    assert.equal(live.length, 1);
  });

  test('limit: default 1000, maximum 5000', async () => {
    for (let i = 0; i < 150; i++) await writeSome();
    const def = await delta('last_id=0');
    assert.equal(def.body.meta.count, 1000);
    assert.equal(def.body.meta.has_more, true);
    assert.equal(def.body.meta.delta_last_id, String(def.body.deltas[999].id));
    assert.equal((await delta('last_id=0&limit=5000')).status, 200);
    const over = await delta('last_id=0&limit=5001');
    assert.equal(over.status, 400);
    assert.match(over.body.error, /limit/);
  });

  test('cursor errors: missing, not an integer, ahead of the head', async () => {
    const missing = await delta('sport_id=4');
    assert.equal(missing.status, 400);
    assert.match(missing.body.error, /last_id is required/);
    for (const bad of ['abc', '-5', '1.5', '9e9']) {
      const r = await delta(`last_id=${bad}`);
      assert.equal(r.status, 400, bad);
      assert.match(r.body.error, /last_id/);
    }
    const ahead = await delta(`last_id=${s.server.ledger.headId + 10}`);
    assert.equal(ahead.status, 400);
    assert.match(ahead.body.error, /ahead/);
    assert.match(ahead.body.error, /delta_last_id/);
    assert.equal((await delta('last_id=0&event_id=nope')).status, 404);
    assert.equal((await delta('last_id=0&sport_id=99')).status, 404);
  });

  test('paging with has_more returns every committed row exactly once, in id order, while writes go on', async () => {
    const start = s.server.ledger.headId;
    const seen: number[] = [];
    let cursor = String(start);
    let writes = 0;
    // Each write is awaited before the final reads: a store slower to commit than the interval
    // (PostgreSQL on a busy machine) still has some queued when the poller sees the 40th begin.
    const pending: Promise<void>[] = [];
    const writer = setInterval(() => {
      if (writes++ < 40) pending.push(writeSome());
    }, 2);
    try {
      for (let polls = 0; polls < 2000; polls++) {
        const r = await delta(`last_id=${cursor}&limit=7`);
        assert.equal(r.status, 200);
        for (const d of r.body.deltas) seen.push(d.id);
        cursor = r.body.meta.delta_last_id;
        if (!r.body.meta.has_more && writes >= 40) break;
        if (!r.body.meta.has_more) await sleep(1);
      }
    } finally {
      clearInterval(writer);
      await Promise.all(pending);
    }
    const r = await delta(`last_id=${cursor}&limit=5000`);
    for (const d of r.body.deltas) seen.push(d.id);
    const expected = (await delta(`last_id=${start}&limit=5000`)).body.deltas.map((d: any) => d.id);
    assert.ok(expected.length >= 40 * 8);
    assert.deepEqual(seen, expected);
  });
});

describe('/api/v2/delta', () => {
  test('without last_id: no items and a first UUID cursor; integer cursors are rejected', async () => {
    const boot = await s.get('/api/v2/delta');
    assert.equal(boot.status, 200);
    assert.match(boot.body.meta.delta_last_id, /^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    assert.deepEqual(boot.body.deltas, []);
    const int = await s.get(`/api/v2/delta?last_id=${s.server.ledger.headId}`);
    assert.equal(int.status, 400);
    assert.match(int.body.error, /UUID/);
    assert.equal((await s.get('/api/v2/delta?last_id=not-a-uuid')).status, 400);
  });

  test('changed events since the cursor, each with its full update as a JSON string', async () => {
    const boot = await s.get('/api/v2/delta');
    const cursor = boot.body.meta.delta_last_id;
    await s.server.ledger.apply(
      batch(new Date().toISOString(), [
        price(E2, {
          market_id: 1,
          participant_id: 2002,
          participant_name: 'Boston',
          affiliate_id: 19,
          price: 777,
        }),
      ]),
    );
    const r = await s.get(`/api/v2/delta?last_id=${cursor}`);
    assert.equal(r.status, 200);
    assert.equal(r.body.meta.count, 1);
    const [item] = r.body.deltas;
    assert.equal(item.event_id, E2);
    assert.equal(typeof item.json, 'string');
    const event = JSON.parse(item.json);
    assert.equal(event.event_id, E2);
    const ml = event.markets.find((m: any) => m.market_id === 1);
    const boston = ml.participants.find((p: any) => p.id === 2002);
    assert.equal(boston.lines[0].prices['19'].price, 777);
    assert.ok(item.id > cursor, 'UUID cursors sort in change order');
    assert.ok(r.body.meta.delta_last_id >= item.id);
    const next = await s.get(`/api/v2/delta?last_id=${r.body.meta.delta_last_id}`);
    assert.equal(next.body.meta.count, 0);
  });

  test('the nil UUID starts the feed at the oldest change it keeps', async () => {
    const r = await s.get('/api/v2/delta?last_id=00000000-0000-0000-0000-000000000000');
    assert.equal(r.status, 200, JSON.stringify(r.body));
    // Every event changed since the log began, each once, with a cursor to go on from.
    assert.deepEqual(r.body.deltas.map((d: any) => d.event_id).sort(), [E1, E2].sort());
    assert.equal(r.body.meta.has_more, false);
    const next = await s.get(`/api/v2/delta?last_id=${r.body.meta.delta_last_id}`);
    assert.deepEqual([next.status, next.body.meta.count], [200, 0]);
  });

  test('limit bounds the events per page and has_more pages on', async () => {
    const cursor = (await s.get('/api/v2/delta')).body.meta.delta_last_id;
    await writeSome();
    const first = await s.get(`/api/v2/delta?last_id=${cursor}&limit=1`);
    assert.equal(first.body.meta.count, 1);
    assert.equal(first.body.meta.has_more, true);
    const second = await s.get(`/api/v2/delta?last_id=${first.body.meta.delta_last_id}&limit=1`);
    assert.equal(second.body.meta.count, 1);
    assert.notEqual(second.body.deltas[0].event_id, first.body.deltas[0].event_id);
  });
});
