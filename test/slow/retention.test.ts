import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { Simulator } from '../../src/feeds/simulator/index.ts';
import { logBase, startTestServer, type TestServer } from '../helpers/server.ts';

/**
 * Retention over two simulated weeks, with an injected clock: one league played day after day,
 * the log compacted and finished games archived as the ledger does it on its timer (stepped here
 * by hand), then the reads users keep for years asked again after a restart. Two weeks is 15 times
 * the retention and leaves the board under a third of the events created (48 of 162); a month (the
 * 173 s this test took, the suite's longest) added no rule to check. `npm run bench:retention`
 * runs the month, with the data directory's size and the memory.
 */

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const STEP = 15 * 60_000;
const DAYS = 15;
const SPORT = 4;
const T0 = Date.UTC(2026, 10, 2, 12, 0, 0);

interface Kept {
  event: unknown;
  openers: unknown;
  closing: unknown;
  stats: unknown;
  players: unknown;
  plays: unknown;
  olderPlays: unknown;
}

describe('retention over two simulated weeks', () => {
  const clock = { now: T0 };
  const now = () => clock.now;
  let t: TestServer;
  let sim: Simulator;
  let gameId = '';
  let kept: Kept;
  let seasonTeam = 0;
  let createdEvents = 0;

  /** The parts of each kept read that do not depend on the head of the log. */
  const keptReads = async (id: string): Promise<Kept> => {
    const read = async (path: string) => {
      const r = await t.get(path);
      assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`);
      return r.body;
    };
    return {
      event: (await read(`/api/v2/events/${id}`)).events,
      openers: (await read(`/api/v2/events/${id}/openers`)).events,
      closing: (await read(`/api/v2/events/${id}/closing`)).events,
      stats: await read(`/api/v2/events/${id}/stats`),
      players: await read(`/api/v2/events/${id}/players/stats`),
      plays: await read(`/api/v2/events/${id}/plays?limit=20`),
      olderPlays: await read(`/api/v2/events/${id}/plays?limit=5&before_sequence=10`),
    };
  };

  before(async () => {
    t = await startTestServer({
      now,
      // Retention steps are taken by the test, between the simulator's steps.
      limits: { retentionDays: 1, boardKeepHours: 12, retentionTickMs: 3_600_000, retentionBatchRows: 5000 },
    });
    const { ledger, board } = t.server;
    sim = new Simulator({ seed: 3, speed: 1, sink: ledger, state: board, now, sportIds: [SPORT] });
    await sim.backfill();
    const final = [...board.events.values()].filter(
      (e) => e.info.score?.event_status === 'STATUS_FINAL' && (e.game?.plays ?? 0) > 0,
    );
    assert.ok(final.length > 0, 'the history fill has finished games');
    const game = final[0]!;
    gameId = game.info.event_id;
    seasonTeam = game.info.teams[0]!.team_id;
    kept = await keptReads(gameId);
    const retention = t.server.services.retention;
    const ids = new Set(board.events.keys());
    for (let step = 1; step * STEP <= DAYS * DAY; step++) {
      clock.now = T0 + step * STEP;
      await sim.step(clock.now);
      for (const id of board.events.keys()) ids.add(id);
      if (clock.now % (6 * HOUR) === 0) await retention.catchUp();
    }
    createdEvents = ids.size;
    // The loop above starved the timers: let idle keep-alive connections expire on both sides
    // before the next request, rather than race the server's close.
    await new Promise((resolve) => setTimeout(resolve, 100));
  });

  after(async () => {
    await sim?.stop();
    await t?.close();
  });

  it('compacts the log and archives finished games: the board stays bounded', async () => {
    const { services, board } = t.server;
    assert.ok(services.retention.dropped > 0, 'rows were dropped');
    assert.ok(services.retention.archived > 0, 'games were archived');
    assert.equal(board.getEvent(gameId), undefined, 'the month-old game left the board');
    // About nine days of games (the simulator's window of ten, less the archived past).
    assert.ok(board.events.size < createdEvents / 2, `${board.events.size} of ${createdEvents} events on the board`);
    const retained = await services.store.retained();
    assert.ok(retained.oldestId > 1 && retained.sinceMs !== undefined);
    assert.ok(retained.sinceMs! >= clock.now - 2 * DAY, 'rows older than the retention are compacted');
  });

  it('still serves the openers, closing, final score, box score and plays of an archived game', async () => {
    const { store } = t.server.services;
    // Its rows left the log for their packed record.
    const inLog = await store.readChanges({
      pricesOnly: false,
      afterId: 0,
      toId: Number.MAX_SAFE_INTEGER,
      limit: 1,
      eventId: gameId,
    });
    assert.deepEqual(inLog, []);
    assert.deepEqual(await keptReads(gameId), kept);
  });

  it('refuses a delta cursor below the oldest retained id with the spec’s 400', async () => {
    // The log's first id, long retired: refused for retention, not as a cursor of an earlier log.
    const r = await t.get(`/api/v2/markets/delta?last_id=${(await logBase(t.server.services.store)) + 1}`);
    assert.equal(r.status, 400);
    assert.match(r.body.message ?? r.body.error, /too far behind: changes before/);
    const { oldestId } = await t.server.services.store.retained();
    const ok = await t.get(`/api/v2/markets/delta?last_id=${(await t.server.services.feed.oldestCursor()) + 1}`);
    assert.equal(ok.status, 200);
    assert.ok((await t.server.services.feed.oldestCursor()) + 1 >= oldestId);
    const metrics = await (await fetch(t.server.metricsUrl!)).text();
    const gauge = Number(/^oddsbase_changelog_oldest_id (\d+)/m.exec(metrics)?.[1]);
    assert.ok(gauge >= oldestId, `oldest id metric ${gauge} is at or above the store's ${oldestId}`);
  });

  it('bounds history reads at what is kept whole: a compacted game shows no partial history', async () => {
    const old = await t.get(`/api/v2/events/${gameId}/markets/history`);
    assert.equal(old.status, 200);
    assert.equal(old.body.meta.count, 0);
    const live = [...t.server.board.events.values()].find((e) => e.markets.size > 0 && e.startMs > clock.now);
    assert.ok(live);
    const recent = await t.get(`/api/v2/events/${live.info.event_id}/markets/history`);
    assert.equal(recent.status, 200);
    assert.ok(recent.body.meta.count > 0);
    const floor = t.server.services.store.retained();
    for (const row of recent.body.history) assert.ok(Date.parse(row.updated_at) >= (await floor).sinceMs!);
  });

  it('season totals count archived games as they counted them on the board', async () => {
    const before = await t.get(`/api/v2/teams/${seasonTeam}/stats`);
    assert.equal(before.status, 200);
    // Everything finished leaves the board now; the season's sums must not move.
    const moved = await t.server.ledger.archiveFinished(clock.now + DAY, 0);
    assert.ok(moved > 0);
    const after = await t.get(`/api/v2/teams/${seasonTeam}/stats`);
    assert.deepEqual(after.body, before.body);
  });

  it('a restart loads only what the board keeps, and archived games are still served', async () => {
    const onBoard = t.server.board.events.size;
    // Archived games of the last days: a feed resuming must still see them as over.
    const recent = [...t.server.board.archivedHeaders.values()]
      .filter(
        (info) => Date.parse(info.event_date) > clock.now - 5 * DAY && info.score?.event_status === 'STATUS_FINAL',
      )
      .map((info) => info.event_id);
    assert.ok(recent.length > 0);
    const dataDir = t.dataDir;
    await sim.stop();
    await t.server.close();
    const restarted = await startTestServer({ now, dataDir, limits: { retentionTickMs: 3_600_000 } });
    try {
      t = { ...restarted, close: t.close };
      assert.equal(restarted.server.board.events.size, onBoard);
      assert.deepEqual(await keptReads(gameId), kept);
      for (const id of recent) assert.equal(restarted.server.board.event(id)?.score?.event_status, 'STATUS_FINAL');
    } finally {
      await restarted.close();
    }
  });
});
