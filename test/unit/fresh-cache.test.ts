import assert from 'node:assert/strict';
import { test } from 'node:test';
import { OPEN_SCOPE } from '../../src/access/plan-scope.ts';
import { Board } from '../../src/board/board.ts';
import { seasonGames } from '../../src/board/season-totals.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { BoxCache } from '../../src/http/box-score.ts';
import { PageCache } from '../../src/http/page-cache.ts';
import { SeasonStatsCache } from '../../src/http/season-stats.ts';
import { SnapshotCache } from '../../src/http/snapshot-cache.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import type { Update } from '../../src/ledger/updates.ts';
import { ByteBudget } from '../../src/perf/byte-budget.ts';
import {
  freshCache,
  type Keeping,
  KeptCache,
  objectCache,
  objectMemo,
  PlainCache,
} from '../../src/perf/fresh-cache.ts';
import { EventQueryCache } from '../../src/projection/event-query.ts';
import { type EventFilter, filterKey } from '../../src/projection/event-view.ts';
import { V1EventCache, V1FilterCache } from '../../src/projection/v1-event.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';
import { batch, creditPlay, nbaEvent, nbaPrices, price, score } from '../helpers/fixtures.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

/**
 * Every cache is a use of the one fresh cache (src/perf/fresh-cache.ts), whose plain twin keeps
 * nothing. Each test runs a cache as the trick and as its twin on the same inputs and asserts the
 * same answers: a kept value is only ever one the cache's user would make again.
 */

const BOTH: readonly Keeping[] = ['kept', 'plain'];
const E = 'ab'.repeat(16);
const BOS = 2002;

test('the trick answers a key only with a value kept for a current token; the twin never does', () => {
  // A value made from its key and token, as a cache's user makes it; tokens move back and forth.
  const make = (key: number, token: number) => `${key}@${token}`;
  const answers: Record<Keeping, string[]> = { kept: [], plain: [] };
  for (const keeping of BOTH) {
    for (const fromSecond of [false, true]) {
      const cache = freshCache<number, number, string>(new ByteBudget(4096), { fromSecond }, keeping);
      let seed = 7;
      for (let i = 0; i < 2000; i++) {
        seed = (seed * 48271) % 2147483647;
        const key = seed % 13;
        const token = (seed >> 4) % 3;
        let value = cache.get(key, token);
        if (value === undefined) {
          value = make(key, token);
          cache.set(key, token, value, 40);
        }
        answers[keeping].push(value);
      }
    }
  }
  assert.deepEqual(answers.kept, answers.plain);
  assert.ok(new KeptCache(new ByteBudget(4096)) instanceof KeptCache);
  assert.equal(new PlainCache<string, number, string>().get(), undefined);
});

test('values kept beside their key objects answer as the twin, each made once per key and token', () => {
  const keys = Array.from({ length: 13 }, (_, i) => ({ i }));
  const made: Record<Keeping, number> = { kept: 0, plain: 0 };
  const answers: Record<Keeping, string[]> = { kept: [], plain: [] };
  for (const keeping of BOTH) {
    const cache = objectCache<{ i: number }, number, string>({}, keeping);
    let seed = 7;
    for (let n = 0; n < 2000; n++) {
      seed = (seed * 48271) % 2147483647;
      const key = keys[seed % 13]!;
      // Tokens move now and then, and back: a value kept for an earlier one is no answer.
      const token = Math.floor(n / 400) % 3;
      // Dropping a key lets go of its value: the next ask makes it again.
      if (n % 97 === 0) cache.drop(key);
      let value = cache.get(key, token);
      if (value === undefined) {
        value = `${key.i}@${token}`;
        made[keeping]++;
        cache.set(key, token, value);
      }
      answers[keeping].push(value);
    }
  }
  assert.deepEqual(answers.kept, answers.plain);
  assert.equal(made.plain, 2000, 'the twin makes every answer');
  assert.ok(made.kept < 200, `the trick made ${made.kept} of 2000`);

  // A memo: one make per key object while it lives; the twin makes it at every call.
  for (const keeping of BOTH) {
    let calls = 0;
    const memo = objectMemo((key: { i: number }) => ({ twice: 2 * key.i, call: ++calls }), keeping);
    const a = memo(keys[3]!);
    assert.deepEqual({ twice: a.twice }, { twice: 6 });
    assert.equal(memo(keys[3]!) === a, keeping === 'kept', keeping);
    assert.equal(memo({ i: 3 }) === a, false, 'another object is another key');
  }
});

test("the trick's own comparison of tokens (a page current for any later head) answers as its twin", () => {
  const answers: Record<Keeping, unknown[]> = { kept: [], plain: [] };
  for (const keeping of BOTH) {
    const pages = new PageCache(new ByteBudget(1 << 20), keeping);
    for (let head = 1; head < 40; head++) {
      // A full page of rows 1..10 (the same bytes forever) and the last page at each head.
      for (const [key, lastId] of [
        ['full', 10],
        [`last|${head}`, head],
      ] as const) {
        if (lastId > head) continue;
        const kept = pages.get(key, head);
        const made = [Buffer.from(`{"deltas":[${lastId}]}`)];
        if (!kept) pages.set(key, made, lastId, lastId);
        answers[keeping].push(Buffer.concat(kept?.parts ?? made).toString(), kept?.points ?? lastId);
      }
    }
  }
  assert.deepEqual(answers.kept, answers.plain);
});

/** The steps the event moves through, made once: a score row carries the time it was made. */
const STEPS: Update[][] = [
  [{ kind: 'score', event_id: E, score: score(E, 'STATUS_IN_PROGRESS', 0, 0) }],
  [price(E, { market_id: 1, participant_id: BOS, participant_name: 'Boston', affiliate_id: 19, price: -150 })],
  [{ kind: 'play', event_id: E, play: creditPlay(BOS, BOS * 100 + 1, 'points', 2, { away: 2, home: 0 }) }],
  [price(E, { market_id: 1, participant_id: BOS, participant_name: 'Boston', affiliate_id: 23, price: 120 })],
  [{ kind: 'play', event_id: E, play: creditPlay(BOS, BOS * 100 + 2, 'points', 3, { away: 5, home: 0 }) }],
];

/** A board whose one NBA event moves through prices, a score and stat rows: each step a new version. */
async function movingBoard() {
  const board = new Board();
  // One clock for both runs: the rows' times are in the answers.
  const now = Date.parse('2026-11-20T12:00:00Z');
  const ledger = await Ledger.open(new MemoryStore(), board, new MemoryBus(), { now: () => now });
  const at = new Date(now - 3_600_000).toISOString();
  const ev = nbaEvent(E);
  await ledger.apply(batch(at, [{ kind: 'event', event: ev }, ...nbaPrices(E)]));
  return {
    board,
    state: () => board.events.get(E)!,
    next: async (i: number) => ledger.apply(batch(at, STEPS[i]!)),
    steps: STEPS.length,
    season: ev.schedule.season_year,
  };
}

function filter(books: number[] | null): EventFilter {
  return {
    marketIds: new Set([1, 2, 3]),
    affiliateIds: books && new Set(books),
    periodIds: null,
    mainLine: false,
    participantIds: null,
    participantType: null,
    hideClosed: false,
    includePriceDelta: true,
    liveGameState: true,
  };
}

/** Asks each cache of the board's event three times a step (kept from the second ask), trick or twin. */
async function answersOf(keeping: Keeping): Promise<unknown[]> {
  const { board, state, next, steps, season } = await movingBoard();
  const budget = new ByteBudget(4 << 20);
  const snapshots = new SnapshotCache(budget, SIMULATOR_CATALOG, keeping);
  const v1 = new V1EventCache(budget, SIMULATOR_CATALOG, keeping);
  const v1Filters = new V1FilterCache(budget, keeping);
  const queries = new EventQueryCache(budget, SIMULATOR_CATALOG, keeping);
  const boxes = new BoxCache(budget, board, SIMULATOR_CATALOG, keeping);
  const seasons = new SeasonStatsCache(budget, SIMULATOR_CATALOG, keeping);
  const scope = {
    teamId: BOS,
    teamName: 'Boston',
    year: season,
    seasonTypeId: 2,
    roster: SIMULATOR_CATALOG.rosterOf(BOS),
    stats: SIMULATOR_CATALOG,
  };
  const out: unknown[] = [];
  for (let step = 0; step <= steps; step++) {
    for (let ask = 0; ask < 3; ask++) {
      for (const books of [[19, 23], [19], [23], null]) {
        const f = filter(books);
        const view = snapshots.event(state(), f, filterKey(f));
        out.push(view.body.toString(), view.points, view.priceCount, view.marketCount);
      }
      const kept = snapshots.response('k', board.head);
      out.push(
        kept?.body.toString() ??
          snapshots
            .storeResponse('k', board.head, snapshots.catalogVersion, Buffer.from(`{"head":${board.head}}`), 1, [])
            .body.toString(),
      );
      const f1 = v1Filters.get(OPEN_SCOPE, { include: 'scores' });
      out.push(f1.key);
      const v1View = v1.event(state(), f1);
      out.push(v1View.body.toString(), v1View.points);
      out.push(queries.get('/api/v2/sports/4/events/x?market_ids=1,2', { market_ids: '1,2' }, 4, OPEN_SCOPE).filterKey);
      const box = boxes.box(state(), false);
      out.push(JSON.stringify(box));
      const found = seasons.games(scope, board.head, () =>
        seasonGames(board, { teamId: BOS, sportIds: [4], year: season, seasonType: 'Regular Season' }),
      );
      out.push(found.key, JSON.stringify(seasons.season(scope, found)));
    }
    if (step < steps) await next(step);
  }
  return out;
}

test('every cache of an event, a response, a query, a box and a season answers as its plain twin', async () => {
  const kept = await answersOf('kept');
  const plain = await answersOf('plain');
  assert.equal(kept.length, plain.length);
  for (let i = 0; i < kept.length; i++) assert.deepEqual(kept[i], plain[i], `answer ${i}`);
});
