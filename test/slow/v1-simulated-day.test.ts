import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import {
  assertClientReads,
  ClientDelta,
  ClientEvent,
  ClientEvents,
  ClientLines,
  ClientSchedule,
} from '../helpers/v1-client-models.ts';

/**
 * The simulator's days (history back-filled, live games running at 60x) read through V1 and V2 at
 * the same change-log head: every number of every V1 line set must be the V2 price or line value it
 * comes from, found here from the V2 JSON alone, and absent sides the off-board sentinel.
 */

const OFF = 0.0001;
/** Sports whose main lines move often enough that, at any hour the test runs, some set shows a point delta. */
const SPORTS = [4, 5, 6, 11, 21, 38, 39];
const DAY = 86_400_000;
const days = [new Date(Date.now() - DAY), new Date()].map((d) => d.toISOString().slice(0, 10));

const FAMILY: Record<number, 'moneyline' | 'spread' | 'total'> = {};
for (const id of [1, 41, 4, 1008, 1150, 1153]) FAMILY[id] = 'moneyline';
for (const id of [2, 42, 5, 1009, 1151]) FAMILY[id] = 'spread';
for (const id of [3, 43, 6, 1010, 1152]) FAMILY[id] = 'total';
const BY_PERIOD_ID = [
  'period_full_game',
  'period_first_half',
  'period_second_half',
  'period_first_period',
  'period_second_period',
  'period_third_period',
  'period_fourth_period',
];

/** The V1 period of a V2 market: in-play full-game ids are the live full game, else by period id. */
const periodName = (m: any): string | undefined =>
  [41, 42, 43].includes(m.market_id) ? 'period_live_full_game' : BY_PERIOD_ID[m.period_id];

let s: TestServer;
let key: string;

before(async () => {
  s = await startTestServer({ simulator: true, speed: 60, seed: 23 });
  // The days before today are filled in the background, each commit a new head: the answers below
  // compare V1 and V2 at one head, which the simulator's stop holds still only once that is done.
  while (s.server.services.readiness.history !== 'complete') await sleep(200);
  key = await s.newKey('enterprise', { v1: true, custom: JSON.stringify({ burstPerSecond: 1_000_000 }) });
});

after(() => s.close());

/**
 * Plain bytes: a kept answer's gzip is reused while a commit changes nothing it shows, so it may
 * carry an earlier meta.delta_last_id than the plain body of the same moment (docs/spec-gaps.md),
 * and the V1 and V2 answers are compared at one head.
 */
const get = async (path: string) => {
  const r = await s.get(path, { 'X-Service-Key': key, 'Accept-Encoding': 'identity' });
  assert.equal(r.status, 200, `${path}: ${JSON.stringify(r.body).slice(0, 300)}`);
  return r;
};

/**
 * A V1 and a V2 answer read at the same head. The simulator commits every tick in between: on a
 * busy machine two reads may never fall within one tick, so after a few tries the simulator is held
 * still for the two reads (its stop lets a step in flight commit) and started again.
 */
async function sameHead(v1Path: string, v2Path: string) {
  for (let i = 0; i < 20; i++) {
    const [v1, v2] = await Promise.all([get(v1Path), get(v2Path)]);
    if (v1.body.meta.delta_last_id === v2.body.meta.delta_last_id) return { v1, v2 };
    await sleep(20);
  }
  const sim = s.server.simulator!;
  await sim.stop();
  try {
    const [v1, v2] = await Promise.all([get(v1Path), get(v2Path)]);
    assert.equal(v1.body.meta.delta_last_id, v2.body.meta.delta_last_id, `no common head for ${v1Path}`);
    return { v1, v2 };
  } finally {
    sim.start();
  }
}

interface Side {
  value: string;
  price: any;
}

/** What the V1 line set of one book and period must hold, from the event's V2 markets. */
function expected(v2Event: any, book: string, period: string) {
  const markets = new Map<string, any>();
  for (const m of v2Event.markets) {
    const family = FAMILY[m.market_id];
    if (family && periodName(m) === period && !markets.has(family)) markets.set(family, m);
  }
  const used: any[] = [];
  const priced = (p: any) => (p.lines as any[]).filter((l) => l.prices[book]);
  const main = (p: any): Side | undefined => {
    if (!p) return undefined;
    const lines = priced(p);
    const flagged = lines.find((l) => l.prices[book].is_main_line) ?? (lines.length === 1 ? lines[0] : undefined);
    if (!flagged) return undefined;
    used.push(flagged.prices[book]);
    return { value: flagged.value, price: flagged.prices[book] };
  };
  const [away, home] = v2Event.teams.map((t: any) => t.team_id);
  const team = (m: any, id: number) => m?.participants.find((p: any) => p.type === 'TYPE_TEAM' && p.id === id);
  const result = (m: any, id?: number) =>
    m?.participants.find((p: any) => p.type === 'TYPE_RESULT' && (id === undefined || p.id === id));
  const money = (x?: Side) => x?.price.price ?? OFF;
  const points = (x?: Side) => (x ? Number(x.value) : OFF);
  const delta = (x?: Side) => x?.price.price_delta ?? 0;

  const ml = markets.get('moneyline');
  const [mlA, mlH, mlD] = [main(team(ml, away)), main(team(ml, home)), main(result(ml))];
  const sp = markets.get('spread');
  const [spA, spH] = [main(team(sp, away)), main(team(sp, home))];
  const tot = markets.get('total');
  const [over, under] = [main(result(tot, 0)), main(result(tot, 1))];

  /** Non-main lines of two participants paired by a key of their value, as [first, second] prices. */
  const extended = (a: any, b: any, mains: (Side | undefined)[], keys: ((v: string) => number)[]) => {
    const pairs = new Map<number, (Side | undefined)[]>();
    [a, b].forEach((p, i) => {
      for (const l of p ? priced(p) : []) {
        if (l.value === mains[i]?.value) continue;
        const k = keys[i]!(l.value);
        const pair = pairs.get(k) ?? [undefined, undefined];
        pair[i] = { value: l.value, price: l.prices[book] };
        used.push(l.prices[book]);
        pairs.set(k, pair);
      }
    });
    return [...pairs].sort((x, y) => x[0] - y[0]).map(([, pair]) => pair);
  };
  const extSpreads = extended(team(sp, away), team(sp, home), [spA, spH], [Number, (v) => -Number(v) + 0]);
  const extTotals = extended(result(tot, 0), result(tot, 1), [over, under], [Number, Number]);

  return {
    used,
    // When each side's main line last changed: a point delta is the move of that row.
    movedAt: { spreadHome: spH?.price.updated_at, over: over?.price.updated_at },
    numbers: {
      moneyline: [money(mlA), delta(mlA), money(mlH), delta(mlH), money(mlD), delta(mlD)],
      spread: [points(spA), money(spA), points(spH), money(spH), delta(spA), delta(spH)],
      total: [points(over), money(over), points(under), money(under), delta(over), delta(under)],
      extended_spreads: extSpreads.map(([x, y]) => [points(x), money(x), points(y), money(y)]),
      extended_totals: extTotals.map(([x, y]) => [points(x), money(x), points(y), money(y)]),
    },
    // The smallest price id of the book in the period: the line id, when the set shows a price.
    lineId:
      used.length === 0
        ? 0
        : Math.min(
            ...[...markets.values()].flatMap((m) =>
              m.participants.flatMap((p: any) =>
                p.lines.flatMap((l: any) => (l.prices[book] ? [Number(l.prices[book].id)] : [])),
              ),
            ),
          ),
  };
}

function actual(set: any) {
  const m = set.moneyline;
  const sp = set.spread;
  const t = set.total;
  return {
    moneyline: [
      m.moneyline_away,
      m.moneyline_away_delta,
      m.moneyline_home,
      m.moneyline_home_delta,
      m.moneyline_draw,
      m.moneyline_draw_delta,
    ],
    spread: [
      sp.point_spread_away,
      sp.point_spread_away_money,
      sp.point_spread_home,
      sp.point_spread_home_money,
      sp.point_spread_away_money_delta,
      sp.point_spread_home_money_delta,
    ],
    total: [
      t.total_over,
      t.total_over_money,
      t.total_under,
      t.total_under_money,
      t.total_over_money_delta,
      t.total_under_money_delta,
    ],
    extended_spreads: sp.extended_spreads.map((x: any) => [
      x.point_spread_away,
      x.point_spread_away_money,
      x.point_spread_home,
      x.point_spread_home_money,
    ]),
    extended_totals: t.extended_totals.map((x: any) => [
      x.total_over,
      x.total_over_money,
      x.total_under,
      x.total_under_money,
    ]),
  };
}

/**
 * Checks every V1 event of a response against the V2 events of the same head; returns the V1 line
 * sets with a moved main line (their point deltas are checked against history) and the points.
 */
function compare(v1Events: any[], v2Events: any[], label: string) {
  const v2ById = new Map(v2Events.map((e) => [e.event_id, e]));
  let points = 0;
  let sets = 0;
  const moved: { eventId: string; book: string; set: any; movedAt: { spreadHome?: string; over?: string } }[] = [];
  assert.deepEqual(
    v1Events.map((e) => e.event_id),
    v2Events.map((e) => e.event_id),
    label,
  );
  for (const e of v1Events) {
    const v2 = v2ById.get(e.event_id);
    const where = `${label} ${e.event_id}`;
    for (const k of ['event_uuid', 'sport_id', 'event_date', 'rotation_number_away', 'rotation_number_home']) {
      assert.equal(e[k], v2[k], `${where} ${k}`);
    }
    assert.deepEqual(
      e.teams_normalized.map((t: any) => [t.team_id, t.name, t.mascot, t.abbreviation, t.record, t.is_away, t.is_home]),
      v2.teams.map((t: any) => [t.team_id, t.name, t.mascot, t.abbreviation, t.record, t.is_away, t.is_home]),
    );
    assert.deepEqual(
      e.teams.map((t: any) => [t.team_id, t.team_normalized_id]),
      v2.teams.map((t: any) => [t.team_id, t.team_id]),
    );
    assert.deepEqual(
      [e.schedule.season_type, e.schedule.season_year, e.schedule.event_name],
      [v2.schedule.season_type, v2.schedule.season_year, v2.schedule.event_name],
    );
    // The V2 score, event_id and updated_at included.
    if (v2.score) assert.deepEqual(e.score, v2.score, where);
    else assert.equal(e.score, undefined);

    const used = new Set<any>();
    const books = new Set<string>();
    for (const m of v2.markets) {
      if (FAMILY[m.market_id] && periodName(m)) {
        for (const p of m.participants) for (const l of p.lines) for (const b of Object.keys(l.prices)) books.add(b);
      }
    }
    assert.deepEqual(Object.keys(e.line_periods ?? {}).sort(), [...books].sort(), `${where} books`);
    for (const [book, periods] of Object.entries<any>(e.line_periods ?? {})) {
      for (const [period, set] of Object.entries<any>(periods)) {
        const want = expected(v2, book, period);
        assert.deepEqual(actual(set), want.numbers, `${where} book ${book} ${period}`);
        assert.equal(set.line_id, want.lineId, `${where} book ${book} ${period} line_id`);
        assert.equal(set.affiliate.affiliate_id, Number(book));
        // Every object is placed: its line, event and book.
        assert.equal(set.affiliate_id, Number(book));
        for (const o of [set.moneyline, set.spread, set.total]) {
          assert.deepEqual([o.line_id, o.event_id, o.affiliate_id], [want.lineId, e.event_id, Number(book)], where);
        }
        for (const o of [...set.spread.extended_spreads, ...set.total.extended_totals]) {
          assert.deepEqual([o.event_id, o.affiliate_id], [e.event_id, Number(book)], where);
        }
        for (const p of want.used) used.add(p);
        sets++;
        if (set.spread.point_spread_home_delta !== 0 || set.total.total_over_delta !== 0) {
          moved.push({ eventId: e.event_id, book, set, movedAt: want.movedAt });
        }
      }
    }
    // `lines` holds exactly the full-game sets that show a price.
    assert.deepEqual(
      e.lines,
      Object.fromEntries(
        Object.entries<any>(e.line_periods ?? {})
          .filter(([, periods]) => periods.period_full_game.line_id !== 0)
          .map(([book, periods]) => [book, periods.period_full_game]),
      ),
    );
    points += 2 + used.size;
  }
  return { points, sets, moved };
}

test('every V1 number of the simulated days is the V2 price or line it comes from', async () => {
  let sets = 0;
  const moved: { eventId: string; book: string; set: any; movedAt: { spreadHome?: string; over?: string } }[] = [];
  for (const sport of SPORTS) {
    for (const day of days) {
      const { v1, v2 } = await sameHead(
        `/api/v1/sports/${sport}/events/${day}?include=all_periods,scores`,
        `/api/v2/sports/${sport}/events/${day}?market_ids=1,2,3&include=all_periods,price_delta`,
      );
      assertClientReads(ClientEvents, v1.body, `events ${sport} ${day}`);
      const r = compare(v1.body.events, v2.body.events, `sport ${sport} ${day}`);
      assert.equal(Number(v1.headers.get('x-datapoints')), r.points, `sport ${sport} ${day} data points`);
      sets += r.sets;
      moved.push(...r.moved);
    }
  }
  assert.ok(sets > 500, `${sets} line sets compared`);

  // A point delta is the move of the main line in its latest row: the V2 history has the old line's
  // row, its flag taken off at the same moment.
  assert.ok(moved.length > 0, 'some main lines moved');
  for (const { eventId, book, set, movedAt } of moved.slice(0, 20)) {
    const check = async (points: number, delta: number, updated: string, resultId?: number) => {
      if (delta === 0) return;
      // The rows of that moment only: a busy event has more than one page of rows after it.
      const at = encodeURIComponent(updated);
      const history = (
        await get(`/api/v2/events/${eventId}/markets/history?affiliate_ids=${book}&from=${at}&to=${at}&limit=5000`)
      ).body.history;
      const old = String(Math.round((points - delta) * 10) / 10);
      const row = history.find(
        (h: any) =>
          h.updated_at === updated &&
          !h.is_main_line &&
          h.change_type === 'line_change' &&
          Number(h.line) === Number(old) &&
          (resultId === undefined || h.market_participant_id === resultId),
      );
      assert.ok(row, `${eventId} book ${book}: the main line left ${old} at ${updated}`);
    };
    // The set's date_updated is its latest side's time, which need not be the move's: the V2 price says.
    await check(set.spread.point_spread_home, set.spread.point_spread_home_delta, movedAt.spreadHome!);
    await check(set.total.total_over, set.total.total_over_delta, movedAt.over!, 0);
  }
});

test('openers and closing of the simulated days: the same line sets from the recorded V2 rows', async () => {
  for (const kind of ['openers', 'closing']) {
    for (const day of days) {
      const { v1, v2 } = await sameHead(
        `/api/v1/sports/4/${kind}/${day}?include=all_periods`,
        `/api/v2/sports/4/${kind}/${day}?market_ids=1,2,3&include=all_periods,price_delta`,
      );
      assertClientReads(ClientEvents, v1.body, `${kind} ${day}`);
      const v2Events = v2.body.events.map((e: any) => ({ ...e, score: undefined }));
      const v1Events = v1.body.events.map((e: any) => ({ ...e, score: undefined }));
      const r = compare(v1Events, v2Events, `${kind} ${day}`);
      assert.equal(Number(v1.headers.get('x-datapoints')), r.points);
    }
  }
});

test('the day’s event, lines, schedule and delta answers: what the official client reads, each number its V2 source', async () => {
  let events = 0;
  for (const sport of [4, 11]) {
    const day = days[1]!;
    const schedule = (await get(`/api/v1/sports/${sport}/schedule?from=${day}&limit=500`)).body;
    assertClientReads(ClientSchedule, schedule, `schedule ${sport}`);
    const { v1 } = await sameHead(
      `/api/v1/sports/${sport}/events/${day}?include=all_periods,scores`,
      `/api/v2/sports/${sport}/events/${day}?market_ids=1,2,3&include=all_periods,price_delta`,
    );
    for (const e of v1.body.events.slice(0, 6)) {
      events++;
      // One event and its line sets, each checked against the V2 event read at the same head.
      for (let i = 0; i < 50; i++) {
        const [one, lines, v2] = await Promise.all([
          get(`/api/v1/events/${e.event_id}?include=all_periods,scores`),
          get(`/api/v1/events/${e.event_id}/lines`),
          get(`/api/v2/events/${e.event_id}?market_ids=1,2,3&include=all_periods,price_delta`),
        ]);
        assertClientReads(ClientEvent, one.body, `event ${e.event_id}`);
        assertClientReads(ClientLines, lines.body, `lines ${e.event_id}`);
        const v2Event = v2.body.events[0];
        const again = await get(`/api/v2/events/${e.event_id}?market_ids=1,2,3&include=all_periods,price_delta`);
        // A commit between the reads: try again.
        if (JSON.stringify(again.body.events[0]) !== JSON.stringify(v2Event)) continue;
        compare([one.body], [v2Event], `event ${e.event_id}`);
        for (const set of lines.body.lines) {
          const name = Object.entries<any>(one.body.line_periods[set.affiliate_id]).find(
            ([, x]) => x.line_id === set.line_id,
          )?.[0];
          if (
            name &&
            JSON.stringify(lines.body) === JSON.stringify((await get(`/api/v1/events/${e.event_id}/lines`)).body)
          ) {
            assert.deepEqual(actual(set), expected(again.body.events[0], String(set.affiliate_id), name).numbers);
          }
        }
        break;
      }
    }
  }
  assert.ok(events > 0);
  const first = (await get('/api/v1/delta')).body;
  assertClientReads(ClientDelta, first, '/api/v1/delta');
  const page = (await get(`/api/v1/delta?last_id=00000000-0000-0000-0000-000000000000&limit=20`)).body;
  assertClientReads(ClientDelta, page, '/api/v1/delta page');
  assert.ok(page.events.length > 0);
  const head = (await get(`/api/v1/sports/4/events/${days[1]}`)).body.meta.delta_last_id;
  const sportPage = (await get(`/api/v1/sports/4/events/delta?last_id=${Number(head) - 200}&limit=20`)).body;
  assertClientReads(ClientDelta, sportPage, 'sport delta');
  // The events snapshot's integer cursor on /api/v1/delta (the official client's documentation).
  assertClientReads(
    ClientDelta,
    (await get(`/api/v1/delta?last_id=${Number(head) - 200}&limit=20`)).body,
    'integer cursor',
  );
});
