import assert from 'node:assert/strict';
import { test } from 'node:test';
import { sportProfile, SPORTS } from '../../src/catalog/sports.ts';
import { statByName } from '../../src/catalog/stats.ts';
import { OFF_BOARD } from '../../src/domain/odds.ts';
import { scoreRuleViolations } from '../../src/catalog/score-rules.ts';
import type { FuturesState } from '../../src/domain/futures.ts';
import type { EventInfo } from '../../src/domain/types.ts';
import type { FeedStateReader, PriceKey, PriceSnapshot } from '../../src/board/feed-state.ts';
import { type FillPosition, Simulator } from '../../src/feeds/simulator/index.ts';
import { Rng } from '../../src/feeds/simulator/rng.ts';
import type { LedgerSink, PriceUpdate, UpdateBatch } from '../../src/ledger/updates.ts';
import { nth } from '../helpers/nth.ts';

const NOW = Date.parse('2026-11-23T09:00:00Z');
const SOCCER = new Set(SPORTS.filter((s) => s.discipline === 'soccer').map((s) => s.sport_id));
/** Prematch markets that close at the start (first-half markets 4, 5, 6 keep their ids in play). */
const PREMATCH = new Set([1, 2, 3, 29, 35, 38, 39, 93, 563, 1150, 1151, 1152, 1153]);

const priceKey = (k: PriceKey) =>
  `${k.event_id}|${k.market_id}|${k.period_id}|${k.participant_id}|${k.affiliate_id}|${k.line}`;

/** An in-memory ledger: keeps events, scores and current prices the way the real one does. */
class MemoryLedger implements LedgerSink, FeedStateReader {
  readonly events = new Map<string, EventInfo>();
  readonly prices = new Map<string, PriceSnapshot & { update: PriceUpdate }>();
  private readonly mains = new Map<string, string>();
  /** The prices of `prices` by group (event, market, period, participant, book), then line. */
  private readonly lines = new Map<string, Map<string, PriceSnapshot>>();
  readonly counts = {
    event: 0,
    score: 0,
    price: 0,
    futures_board: 0,
    futures_price: 0,
    futures_settlement: 0,
    catalog: 0,
    play: 0,
    box_score: 0,
    season_stats: 0,
    batches: 0,
    largestBatch: 0,
  };
  readonly futures = new Map<string, FuturesState>();
  /** `${event_id}:${player_id}:${stat_id}` -> value, summed from the plays' credits. */
  private readonly playerStats = new Map<string, number>();
  batches: UpdateBatch[] | undefined;
  onPrice?: (u: PriceUpdate) => void;

  async apply(batch: UpdateBatch): Promise<void> {
    this.counts.batches++;
    this.counts.largestBatch = Math.max(this.counts.largestBatch, batch.updates.length);
    this.batches?.push(batch);
    for (const u of batch.updates) {
      this.counts[u.kind]++;
      if (u.kind === 'futures_board') {
        if (!this.futures.has(u.board.event_id)) this.futures.set(u.board.event_id, 'open');
        continue;
      }
      if (u.kind === 'futures_settlement') {
        this.futures.set(u.event_id, u.state);
        continue;
      }
      if (u.kind === 'futures_price' || u.kind === 'catalog' || u.kind === 'box_score' || u.kind === 'season_stats')
        continue;
      if (u.kind === 'event') {
        this.events.set(u.event.event_id, { ...this.events.get(u.event.event_id), ...u.event });
        continue;
      }
      const ev = this.events.get(u.event_id);
      assert.ok(ev, `update for unknown event ${u.event_id}`);
      if (u.kind === 'score') {
        ev.score = u.score;
        if (u.live_game_state === null) delete ev.live_game_state;
        else if (u.live_game_state) ev.live_game_state = u.live_game_state;
        continue;
      }
      if (u.kind === 'play') {
        for (const c of u.play.credits) {
          const statId = statByName(ev.sport_id, c.stat)?.id;
          if (c.player_id === undefined || statId === undefined) continue;
          const key = `${u.event_id}:${c.player_id}:${statId}`;
          this.playerStats.set(key, (this.playerStats.get(key) ?? 0) + c.n);
        }
        continue;
      }
      this.onPrice?.(u);
      const key = priceKey(u);
      const main = u.is_main_line ?? this.prices.get(key)?.is_main_line ?? false;
      const group = `${u.event_id}|${u.market_id}|${u.period_id}|${u.participant_id}|${u.affiliate_id}`;
      if (main) {
        const old = this.mains.get(group);
        const oldPrice = old === undefined || old === u.line ? undefined : this.prices.get(`${group}|${old}`);
        if (oldPrice) oldPrice.is_main_line = false;
        this.mains.set(group, u.line);
      }
      const entry = { price: u.price, is_main_line: main, closed: u.closed === true, update: u };
      this.prices.set(key, entry);
      let lines = this.lines.get(group);
      if (!lines) {
        lines = new Map();
        this.lines.set(group, lines);
      }
      lines.set(u.line, entry);
    }
  }

  event(eventId: string): EventInfo | undefined {
    return this.events.get(eventId);
  }

  eventIds(): Iterable<string> {
    return this.events.keys();
  }

  price(key: PriceKey): PriceSnapshot | undefined {
    return this.prices.get(priceKey(key));
  }

  linePrices(g: Omit<PriceKey, 'line'>): ReadonlyMap<string, PriceSnapshot> {
    return (
      this.lines.get(`${g.event_id}|${g.market_id}|${g.period_id}|${g.participant_id}|${g.affiliate_id}`) ?? new Map()
    );
  }

  futuresState(eventId: string): FuturesState | undefined {
    return this.futures.get(eventId);
  }

  playerStat(eventId: string, playerId: number, statId: number): number {
    return this.playerStats.get(`${eventId}:${playerId}:${statId}`) ?? 0;
  }

  headId(): number {
    const c = this.counts;
    return c.event + c.score + c.price + c.futures_board + c.futures_price + c.futures_settlement + c.play;
  }
}

interface Observed {
  soccerMoneyline: Map<string, Set<string>>;
  mmaMarkets: Set<number>;
  politicsMarkets: Set<number>;
  mainMoves: number;
  offBoard: number;
  liquidity: { with: number; without: number };
  sourceIds: { event_id: string; market_id: number; source_id?: string }[];
}

function observe(ledger: MemoryLedger): Observed {
  const seen: Observed = {
    soccerMoneyline: new Map(),
    mmaMarkets: new Set(),
    politicsMarkets: new Set(),
    mainMoves: 0,
    offBoard: 0,
    liquidity: { with: 0, without: 0 },
    sourceIds: [],
  };
  const lastMain = new Map<string, string>();
  ledger.onPrice = (u) => {
    const sport = ledger.events.get(u.event_id)?.sport_id ?? 0;
    if (SOCCER.has(sport) && (u.market_id === 1 || u.market_id === 41)) {
      const key = `${u.event_id}:${u.market_id}:${u.affiliate_id}`;
      const set = seen.soccerMoneyline.get(key) ?? new Set<string>();
      set.add(`${u.participant_type}:${u.participant_id}:${u.participant_name}`);
      seen.soccerMoneyline.set(key, set);
    }
    if (sport === 7) seen.mmaMarkets.add(u.market_id);
    if (sport === 22) seen.politicsMarkets.add(u.market_id);
    if (u.price === OFF_BOARD) seen.offBoard++;
    if (u.affiliate_id === 25 && u.price !== OFF_BOARD) {
      if (u.liquidity_usd !== undefined && u.liquidity_usd > 0) seen.liquidity.with++;
      else seen.liquidity.without++;
    }
    if (u.affiliate_id === 26 && seen.sourceIds.length < 5000) seen.sourceIds.push(u);
    if (u.is_main_line) {
      const key = `${u.event_id}|${u.market_id}|${u.period_id}|${u.participant_id}|${u.affiliate_id}`;
      const previous = lastMain.get(key);
      if (previous !== undefined && previous !== u.line) seen.mainMoves++;
      lastMain.set(key, u.line);
    }
  };
  return seen;
}

interface Run {
  ledger: MemoryLedger;
  sim: Simulator;
  clock: { now: number };
  seen: Observed;
}

async function backfilled(seed: number, sportIds?: number[], keepBatches = false): Promise<Run> {
  const ledger = new MemoryLedger();
  if (keepBatches) ledger.batches = [];
  const seen = observe(ledger);
  const clock = { now: NOW };
  const sim = new Simulator({ seed, speed: 1, sink: ledger, state: ledger, now: () => clock.now, sportIds });
  await sim.backfill();
  return { ledger, sim, clock, seen };
}

let shared: Promise<Run> | undefined;
/** One full back-fill (seed 1) that most tests read; the later tests move its clock on. */
const full = (): Promise<Run> => {
  shared ??= backfilled(1);
  return shared;
};

test('the same seed gives the same events and the same batches', async () => {
  const a = await backfilled(7, [4, 7, 11], true);
  const b = await backfilled(7, [4, 7, 11], true);
  assert.deepEqual([...a.ledger.events.keys()], [...b.ledger.events.keys()]);
  assert.ok(a.ledger.batches && b.ledger.batches && a.ledger.batches.length > 10);
  assert.deepEqual(a.ledger.batches.slice(0, 20), b.ledger.batches.slice(0, 20));
  // Event ids depend on the seed, not on which other sports run.
  const nba = (run: Run) => [...run.ledger.events.values()].filter((e) => e.sport_id === 4).map((e) => e.event_id);
  assert.deepEqual(nba(await backfilled(1, [4])).sort(), nba(await full()).sort());
  const seven = new Set(nba(a));
  assert.ok(nba(await full()).every((id) => !seven.has(id)));
});

test('every sport id but the futures-only ones has events, about a thousand in the window, with well-formed headers', async () => {
  const events = [...(await full()).ledger.events.values()];
  assert.ok(events.length >= 900 && events.length <= 1350, `${events.length} events`);
  assert.deepEqual(
    [...new Set(events.map((e) => e.sport_id))].sort((x, y) => x - y),
    SPORTS.filter((s) => !s.futures_only).map((s) => s.sport_id),
  );
  let doubleheaders = 0;
  for (const e of events) {
    assert.match(e.event_id, /^[0-9a-f]{32}$/);
    assert.match(e.event_uuid, /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    assert.notEqual(e.event_uuid.replaceAll('-', ''), e.event_id);
    assert.match(e.event_date, /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z$/);
    const [away, home] = e.teams;
    assert.ok(away && home, `${e.event_id} has two teams`);
    assert.ok(away.is_away && !away.is_home && home.is_home && !home.is_away);
    assert.notEqual(away.team_id, home.team_id);
    if (e.sport_id !== 22) assert.match(away.record, /^\d+-\d+(-\d+)?$/);
    if (SOCCER.has(e.sport_id)) {
      assert.equal(e.rotation_number_away, undefined);
    } else {
      assert.equal((e.rotation_number_away ?? 0) % 2, 1);
      assert.equal(e.rotation_number_home, (e.rotation_number_away ?? 0) + 1);
    }
    assert.ok(e.schedule.event_name.includes(' at ') || e.schedule.event_name.includes(' vs '));
    assert.ok(e.schedule.league_name.length > 0 && e.schedule.season_year >= 2025);
    if (e.schedule.game_type === 'doubleheader') doubleheaders++;
    const day = Math.floor(Date.parse(e.event_date) / 86_400_000);
    const today = Math.floor(NOW / 86_400_000);
    assert.ok(day >= today - 3 && day <= today + 7);
  }
  assert.ok(doubleheaders >= 2, 'baseball doubleheaders occur');
});

test('the history fill stays within its budget', async () => {
  const { ledger } = await full();
  assert.ok(ledger.counts.price <= 600_000, `${ledger.counts.price} price updates`);
  assert.ok(ledger.prices.size <= 250_000, `${ledger.prices.size} prices`);
  assert.ok(ledger.counts.largestBatch <= 2_000, `largest batch ${ledger.counts.largestBatch}`);
});

test('soccer moneylines have home, draw and away; the draw is TYPE_RESULT 2', async () => {
  const sets = [...(await full()).seen.soccerMoneyline.values()];
  assert.ok(sets.length > 100);
  for (const set of sets) {
    assert.equal(set.size, 3);
    assert.ok(set.has('TYPE_RESULT:2:Draw'));
  }
});

test('MMA has no spread market; politics has moneylines only', async () => {
  const { mmaMarkets, politicsMarkets } = (await full()).seen;
  assert.ok(mmaMarkets.has(1) && mmaMarkets.has(3));
  assert.ok(!mmaMarkets.has(2) && !mmaMarkets.has(42));
  assert.deepEqual(
    [...politicsMarkets].sort((x, y) => x - y),
    [1, 41],
  );
});

test('scores: none before the start, and finals obey the score rules', async () => {
  let finals = 0;
  let overtime = 0;
  for (const e of (await full()).ledger.events.values()) {
    if (!e.score) continue;
    const called = e.score.event_status === 'STATUS_POSTPONED' || e.score.event_status === 'STATUS_CANCELED';
    if (!called) assert.ok(Date.parse(e.event_date) <= NOW, 'no score before the start');
    assert.deepEqual(scoreRuleViolations(e.score, sportProfile(e.sport_id)!), [], JSON.stringify(e.score));
    if (e.score.event_status !== 'STATUS_FINAL') continue;
    finals++;
    if (e.score.event_status_detail !== 'Final') overtime++;
    assert.equal(e.live_game_state, undefined);
  }
  assert.ok(finals > 250, `${finals} finals`);
  assert.ok(overtime > 0, 'some games go to overtime or extra innings');
  const statuses = new Set([...(await full()).ledger.events.values()].map((e) => e.score?.event_status));
  assert.ok(statuses.has('STATUS_POSTPONED') || statuses.has('STATUS_CANCELED'));
});

test('main lines move, books go off the board, exchange liquidity and prediction-market ids', async () => {
  const { seen, ledger } = await full();
  assert.ok(seen.mainMoves > 100, `${seen.mainMoves} main-line moves`);
  assert.ok(seen.offBoard > 0, 'off-board prices appear');
  assert.ok(seen.liquidity.with > 1000 && seen.liquidity.without === 0, JSON.stringify(seen.liquidity));
  assert.ok(seen.sourceIds.length > 1000);
  for (const u of seen.sourceIds) {
    const parts = (u.source_id ?? '').split(':');
    assert.equal(parts.length, 3, String(u.source_id));
    assert.match(nth(parts, 1), /^\d+$/, 'market id second to last');
    assert.equal(parts[2], ledger.events.get(u.event_id)?.affiliate_source_ids?.['26']);
  }
});

test('a game that reaches its start closes its prematch prices and opens 41/42/43', async () => {
  const run = await full();
  const { ledger } = run;
  const open = (eventId: string, marketIds: Set<number>) =>
    [...ledger.prices.values()].filter(
      (p) => p.update.event_id === eventId && marketIds.has(p.update.market_id) && !p.closed,
    );
  const candidate = [...ledger.events.values()]
    .filter((e) => e.sport_id === 4 && !e.score && Date.parse(e.event_date) > NOW)
    .sort((x, y) => Date.parse(x.event_date) - Date.parse(y.event_date))[0];
  assert.ok(candidate, 'an upcoming NBA game');
  assert.ok(open(candidate.event_id, PREMATCH).length > 20, 'prematch prices before the start');
  const start = Date.parse(candidate.event_date);
  while (run.clock.now < start + 5 * 60_000) {
    run.clock.now += 60_000;
    await run.sim.step(run.clock.now);
  }
  const ev = ledger.events.get(candidate.event_id);
  assert.equal(ev?.score?.event_status, 'STATUS_IN_PROGRESS');
  assert.ok(ev?.live_game_state && 'possession' in ev.live_game_state);
  assert.deepEqual(open(candidate.event_id, PREMATCH), []);
  for (const id of [41, 42, 43]) assert.ok(open(candidate.event_id, new Set([id])).length >= 2, `market ${id}`);
  assert.ok(open(candidate.event_id, new Set([4, 5, 6])).length > 0, 'first-half markets stay open in play');
});

test('a restart resumes from the committed state without rewriting history', async () => {
  const run = await full();
  const { ledger } = run;
  const before = new Map([...ledger.events].map(([id, e]) => [id, e.score ? { ...e.score } : undefined]));
  const counts = { ...ledger.counts };
  run.clock.now += 2 * 60_000;
  const restarted = new Simulator({
    seed: 1,
    speed: 1,
    sink: ledger,
    state: ledger,
    now: () => run.clock.now,
  });
  await restarted.backfill();
  const created = ledger.counts.event - counts.event;
  assert.ok(created < 40, `${created} events created on resume`);
  for (let i = 0; i < 180; i++) {
    run.clock.now += 1000;
    await restarted.step(run.clock.now);
  }
  let continued = 0;
  for (const [id, old] of before) {
    const now = ledger.events.get(id)?.score;
    if (old?.event_status === 'STATUS_FINAL') assert.deepEqual(now, old, 'a final stays final');
    if (!old || !now || old.event_status !== 'STATUS_IN_PROGRESS') continue;
    assert.ok(now.score_away >= old.score_away && now.score_home >= old.score_home, 'scores continue');
    assert.ok(now.game_period >= old.game_period, 'periods continue');
    if (now.updated_at !== old.updated_at) continued++;
  }
  assert.ok(continued > 0, 'live games go on after the restart');
  assert.ok(ledger.counts.price - counts.price < 50_000, 'resuming does not rewrite the prices');
});

/**
 * Counts the events in play after every batch time of a back-fill, from `from` on. Only scores
 * matter here, so prices are dropped (the store looks empty to the simulator, as it is).
 */
class LiveCounter implements LedgerSink, FeedStateReader {
  private readonly live = new Set<string>();
  /** Events in play at each batch time (the last batch of a time wins). */
  readonly counts = new Map<string, number>();

  constructor(private readonly from: number) {}

  async apply(batch: UpdateBatch): Promise<void> {
    for (const u of batch.updates) {
      if (u.kind !== 'score') continue;
      const status = u.score.event_status;
      if (status === 'STATUS_IN_PROGRESS' || status === 'STATUS_HALFTIME') this.live.add(u.event_id);
      else this.live.delete(u.event_id);
    }
    if (Date.parse(batch.at) >= this.from) this.counts.set(batch.at, this.live.size);
  }

  get inPlay(): number {
    return this.live.size;
  }

  event(): EventInfo | undefined {
    return undefined;
  }

  eventIds(): Iterable<string> {
    return [];
  }

  price(): PriceSnapshot | undefined {
    return undefined;
  }

  linePrices(): ReadonlyMap<string, PriceSnapshot> {
    return new Map();
  }

  futuresState(): FuturesState | undefined {
    return undefined;
  }

  playerStat(): number {
    return 0;
  }

  headId(): number {
    return 0;
  }
}

test('at every minute of every day at least five events are in play', async () => {
  const DAY = 86_400_000;
  const check = async (seed: number, now: number) => {
    // The window opens three days back: from two days back on, every game in play has been created.
    const counter = new LiveCounter((Math.floor(now / DAY) - 2) * DAY);
    // At the live test's speed: history plays at real time whatever the speed.
    await new Simulator({ seed, speed: 60, sink: counter, state: counter, now: () => now }).backfill();
    const label = `seed ${seed}, back-filled to ${new Date(now).toISOString()}`;
    assert.ok(counter.inPlay >= 5, `${label}: ${counter.inPlay} in play at the end`);
    for (const [at, n] of counter.counts) assert.ok(n >= 5, `${label}: ${n} in play at ${at}`);
    return counter.counts.size;
  };
  // A back-fill steps through history a minute at a time, and one that stops at an earlier minute of
  // the same day takes exactly the same steps: so one back-fill to the end of a day checks a start
  // at every minute of that day, and its history the two days before. Three cover every weekday.
  for (const [seed, day] of [
    [1, '2026-11-23'],
    [2, '2026-11-26'],
    [3, '2026-11-29'],
  ] as const) {
    assert.ok((await check(seed, Date.parse(`${day}T23:59:00Z`))) > 3 * 1000);
  }
  // And a few back-fills that stop at random minutes of other days.
  const rng = Rng.of('live-check');
  for (const seed of [4, 5]) {
    const minute = Math.floor(rng.between(0, 7 * 1440));
    await check(seed, Date.parse('2026-12-07T00:00:00Z') + minute * 60_000);
  }
});

test('live clocks speed up from the end of the fill: a slow fill does not play its own duration fast', async () => {
  const ledger = new MemoryLedger();
  const FILL_TOOK = 30 * 60_000;
  // The clock reads NOW when the fill starts and half an hour later on every read after it: a fill
  // that took that long on a slow machine.
  // An evening in North America: NBA and NHL games in play.
  const start = Date.parse('2026-11-24T01:30:00Z');
  let reads = 0;
  const clock = () => (reads++ === 0 ? start : start + FILL_TOOK);
  const sim = new Simulator({ seed: 1, speed: 60, sink: ledger, state: ledger, now: clock, sportIds: [4, 6] });
  await sim.backfill();
  const inPlay = () => [...ledger.events.values()].filter((e) => e.score?.event_status === 'STATUS_IN_PROGRESS').length;
  const before = inPlay();
  assert.ok(before > 0, 'games are in play when the fill ends');
  // One live second at 60 times: a minute of game time, whatever the fill took.
  await sim.step(start + FILL_TOOK + 1000);
  assert.ok(inPlay() >= before - 1, `${inPlay()} of ${before} games still in play after one live step`);
});

test('a first fill stopped between two steps and resumed from its position gives the same events as one not stopped', async () => {
  const sports = [4, 7, 11];
  const whole = await backfilled(3, sports);
  const ledger = new MemoryLedger();
  const clock = { now: NOW };
  /** A fill as `whole` had (its seed, sports and clock), into `into`. */
  const simulatorFor = (into: MemoryLedger) =>
    new Simulator({ seed: 3, speed: 1, sink: into, state: into, now: () => clock.now, sportIds: sports });
  const stop = new AbortController();
  let position: FillPosition | undefined;
  let steps = 0;
  const first = simulatorFor(ledger);
  const complete = await first.backfill(undefined, {
    signal: stop.signal,
    onStep: async (p) => {
      position = p;
      if (++steps === 2000) stop.abort();
    },
  });
  assert.equal(complete, false);
  assert.ok(position && ledger.events.size < whole.ledger.events.size, 'stopped part of the way');
  const resumed = simulatorFor(ledger);
  assert.equal(await resumed.backfill(undefined, { resume: position }), true);
  assert.deepEqual([...ledger.events.keys()].sort(), [...whole.ledger.events.keys()].sort());
  const finals = (l: MemoryLedger) =>
    [...l.events.values()]
      .filter((e) => e.score?.event_status === 'STATUS_FINAL')
      .map((e) => e.event_id)
      .sort();
  assert.deepEqual(finals(ledger), finals(whole.ledger), 'the same games were played to the end');

  // Resumed as an ordinary restart instead (what a start did before): the history is not the same.
  const plain = new MemoryLedger();
  const partial = simulatorFor(plain);
  const halt = new AbortController();
  let n = 0;
  await partial.backfill(undefined, { signal: halt.signal, onStep: async () => void (++n === 2000 && halt.abort()) });
  await simulatorFor(plain).backfill();
  assert.notDeepEqual([...plain.events.keys()].sort(), [...whole.ledger.events.keys()].sort());
});
