import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { sportProfile } from '../../src/catalog/sports.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * The real server with the default simulator, its clocks sped up: prices, scores and main lines
 * must move on their own, and a restart must resume from the stored state.
 */
let s: TestServer;
const today = new Date().toISOString().slice(0, 10);
// Games that started late yesterday (UTC) are still live just after midnight.
const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10);

before(async () => {
  s = await startTestServer({ simulator: true, speed: 60, seed: 11 });
});

after(() => s.close());

/** Every event of yesterday and today across all sports, by id. */
async function todaysEvents(): Promise<Map<string, any>> {
  const out = new Map<string, any>();
  for (const day of [yesterday, today]) {
    const ids = await s.get(`/api/v2/sports/events/${day}`);
    for (const sportId of Object.keys(ids.body)) {
      const r = await s.get(`/api/v2/sports/${sportId}/events/${day}`);
      assert.equal(r.status, 200);
      for (const e of r.body.events) out.set(e.event_id, e);
    }
  }
  return out;
}

test('the simulator fills every sport and serves live games', async () => {
  const sports = await s.get('/api/v2/sports/dates');
  for (const { sport_id } of (await s.get('/api/v2/sports', {})).body.sports) {
    if (sportProfile(sport_id)?.futures_only) {
      // Golf and motor racing have futures boards and no games; one is open at every hour (a
      // week's golf board opens on the Sunday before, while the last one is decided).
      assert.ok(!sports.body[String(sport_id)]?.dates.length, `sport ${sport_id} has no dates`);
      const boards = await s.get(`/api/v2/sports/${sport_id}/futures`);
      assert.ok(boards.body.events.length > 0, `sport ${sport_id} has an open futures board`);
    } else {
      assert.ok(sports.body[String(sport_id)]?.dates.length > 0, `sport ${sport_id} has dates`);
    }
  }
  // The season boards moved with the games finished in the history: some prices have a delta.
  const boards = (await s.get('/api/v2/sports/4/futures?include_settled=true')).body.events;
  // Every winner board uses the spec's market 1141, as existing clients read it.
  assert.deepEqual([...new Set(boards.flatMap((b: any) => b.markets.map((m: any) => m.market_id)))], [1141]);
  const moved = boards.flatMap((b: any) =>
    b.markets[0].participants.flatMap((p: any) => Object.values(p.prices).filter((x: any) => x.price_delta !== 0)),
  );
  assert.ok(moved.length > 0, 'NBA futures prices moved after games');
  const events = await todaysEvents();
  assert.ok(events.size > 20);
  const statuses = new Set([...events.values()].map((e) => e.score?.event_status ?? 'STATUS_SCHEDULED'));
  assert.ok(statuses.has('STATUS_SCHEDULED'));
  assert.ok(statuses.has('STATUS_IN_PROGRESS') || statuses.has('STATUS_HALFTIME'), [...statuses].join());
});

test('prices, scores and the main-line flag change while the simulator runs', async () => {
  const before = await todaysEvents();
  const cursor = (await s.get(`/api/v2/sports/4/events/${today}`)).body.meta.delta_last_id;
  const rows: any[] = [];
  let scoresMoved = false;
  for (let i = 0; i < 30 && !(scoresMoved && rows.some((r) => r.change_type === 'line_change')); i++) {
    await sleep(1000);
    let last = rows.length ? String(rows[rows.length - 1].id) : cursor;
    for (;;) {
      const d = await s.get(`/api/v2/markets/delta?last_id=${last}&limit=5000`);
      rows.push(...d.body.deltas);
      last = d.body.meta.delta_last_id;
      if (!d.body.meta.has_more) break;
    }
    const now = await todaysEvents();
    scoresMoved = [...now.values()].some((e) => {
      const old = before.get(e.event_id);
      return (
        e.score &&
        (!old?.score || old.score.score_away !== e.score.score_away || old.score.score_home !== e.score.score_home)
      );
    });
  }
  assert.ok(
    rows.some((r) => r.change_type === 'price_change'),
    'prices changed',
  );
  assert.ok(scoresMoved, 'a score changed');
  const moves = rows.filter((r) => r.change_type === 'line_change');
  assert.ok(moves.length > 0, 'a main line moved');
  // A move is a pair at one timestamp: the flag leaves one line and arrives on another.
  const m = moves.find((r) => r.is_main_line);
  assert.ok(m);
  assert.ok(
    moves.some(
      (r) =>
        !r.is_main_line &&
        r.updated_at === m.updated_at &&
        r.event_id === m.event_id &&
        r.market_id === m.market_id &&
        r.affiliate_id === m.affiliate_id &&
        r.participant_id === m.participant_id &&
        r.line !== m.line,
    ),
  );
});

test('a restart keeps the data and the id sequence, and the simulation resumes', async () => {
  const head = s.server.ledger.headId;
  const events = s.server.board.events.size;
  await s.close({ keepData: true });
  s = await startTestServer({ simulator: true, speed: 60, seed: 11, dataDir: s.dataDir });
  assert.ok(s.server.ledger.headId >= head);
  assert.ok(s.server.board.events.size >= events);
  const at = s.server.ledger.headId;
  await sleep(3000);
  assert.ok(s.server.ledger.headId > at, 'the simulator writes again after the restart');
  const d = await s.get(`/api/v2/markets/delta?last_id=${head}&limit=5000`);
  assert.ok(d.body.deltas.every((r: any) => r.id > head));
});
