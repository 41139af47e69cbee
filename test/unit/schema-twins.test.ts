import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import fastJson from 'fast-json-stringify';
import type { BoardView } from '../../src/board/board-view.ts';
import type { EventState } from '../../src/board/event-state.ts';
import { sumBoxes } from '../../src/board/season-totals.ts';
import { decodeChange, type PriceDetail } from '../../src/changelog/change.ts';
import type { DeltaRow } from '../../src/domain/types.ts';
import { boxBody, schemaBox, writtenBox } from '../../src/http/box-score.ts';
import { schemaSeason } from '../../src/http/season-stats.ts';
import { PlayerGameStatsSchema, PlaysPageSchema, TeamGameStatsSchema } from '../../src/http/stats-schemas.ts';
import { marketKey, participantKey } from '../../src/board/event-state.ts';
import { DeltaRowWriter, SchemaRowWriter } from '../../src/perf/delta-row-text.ts';
import { seasonText } from '../../src/perf/stats-text.ts';
import { eventText, plainEventJson } from '../../src/projection/event-json.ts';
import type { EventFilter } from '../../src/projection/event-view.ts';
import { cursorToUuid } from '../../src/domain/uuid-cursor.ts';
import { MarketsDeltaSchema, V1DeltaSchema, V2EventDeltaSchema } from '../../src/http/delta-schemas.ts';
import { eventsOpen, listOpen, pageOpen, playsOpen } from '../../src/perf/envelope-text.ts';
import { joinJson } from '../../src/projection/json-bytes.ts';
import { EventsEnvelope } from '../../src/projection/schemas.ts';
import { V1EventsEnvelope } from '../../src/projection/v1-schemas.ts';
import { DAY_NOW, type SimulatedDay, simulatedDay, wholeFilter } from '../helpers/simulated-day.ts';
import { SIMULATOR_CATALOG } from '../helpers/simulator-catalog.ts';

/**
 * Every hand-made serialiser of src/perf/ against its plain twin, the schema's own serialiser, over
 * the objects of a simulated day (hockey and baseball, a fixed seed): the same bytes, always.
 */

const teamGameStats = fastJson(TeamGameStatsSchema);
const playerGameStats = fastJson(PlayerGameStatsSchema);

let day: SimulatedDay;
before(async () => {
  day = await simulatedDay({ sports: [6, 1], liveSteps: 6 });
});
after(() => day.close());

const views = (): [string, BoardView][] => [
  ['live', day.board],
  ['delay 30', day.views.forDelay(30)],
  ['delay 300', day.views.forDelay(300)],
];

/** Filters a request can send: every field, some books and markets, main lines, a participant type. */
function filtersFor(state: EventState): EventFilter[] {
  const whole = wholeFilter(state);
  const books = new Set<number>();
  for (const m of state.markets.values())
    for (const p of m.participants.values())
      for (const l of p.lines.values()) for (const b of l.prices.keys()) books.add(b);
  const every = <T>(s: Set<T> | ReadonlySet<T>, n: number) => new Set([...s].filter((_, i) => i % n === 0));
  return [
    whole,
    { ...whole, includePriceDelta: false, liveGameState: false },
    { ...whole, marketIds: every(whole.marketIds, 2), affiliateIds: every(books, 3), hideClosed: true },
    { ...whole, periodIds: new Set([0]), mainLine: true, participantType: 'TYPE_TEAM' },
    { ...whole, participantType: 'TYPE_PLAYER', affiliateIds: new Set() },
  ];
}

test('event JSON: written from the board and through EventSchema, the same bytes, counts and flags', () => {
  let events = 0;
  let prices = 0;
  for (const [name, view] of views()) {
    for (const id of day.board.events.keys()) {
      const state = view.getEvent(id);
      if (!state) continue;
      events++;
      for (const [i, f] of filtersFor(state).entries()) {
        const plain = plainEventJson(state, f, SIMULATOR_CATALOG);
        assert.deepEqual(eventText.eventJson(state, f, SIMULATOR_CATALOG), plain, `${name} ${id} filter ${i}`);
        prices += plain.priceCount;
      }
    }
  }
  assert.ok(events > 100 && prices > 10_000, `${events} events, ${prices} prices`);
});

test('Delta rows and their details: written by hand and through their schemas, the same bytes as committed', async () => {
  const written = new DeltaRowWriter();
  const schema = new SchemaRowWriter();
  const rows = await day.store.readChanges({
    pricesOnly: true,
    afterId: 0,
    toId: day.board.head,
    limit: Number.MAX_SAFE_INTEGER,
  });
  let checked = 0;
  for (const row of rows) {
    const change = decodeChange(row);
    assert.equal(change.kind, 'price');
    if (change.kind !== 'price') continue;
    const d = JSON.parse(row.payload) as DeltaRow;
    const x = JSON.parse(row.detail!) as PriceDetail;
    const f = change.fact;
    const market = day.board.getEvent(f.event_id)?.markets.get(marketKey(f.market_id, f.period_id));
    const participant = market?.participants.get(participantKey(f.participant_type, f.participant_id));
    const line = participant?.lines.get(f.line);
    assert.ok(market && participant && line, `row ${row.id} is on the board`);
    const previous = d.previous_price === '' ? undefined : Number(d.previous_price);
    const args = [
      row.id,
      { event_id: f.event_id, sport_id: row.sport_id },
      f.affiliate_id,
      market,
      d.market_name,
      participant,
      line,
      f.price,
      previous,
      d.change_type,
      f.is_main_line,
      d.closed_at,
      d.updated_at,
    ] as const;
    assert.equal(written.write(...args), row.payload, `row ${row.id}`);
    assert.equal(schema.write(...args), row.payload, `row ${row.id}`);
    const detail = [
      x.price_id,
      market,
      line,
      x.price_delta,
      x.liquidity_usd,
      x.source_id,
      x.moved_from,
      x.quote_unchanged === true,
    ] as const;
    assert.equal(written.detail(...detail), row.detail, `row ${row.id}`);
    assert.equal(schema.detail(...detail), row.detail, `row ${row.id}`);
    checked++;
  }
  assert.ok(checked > 10_000, `${checked} price rows`);
});

test('box scores: written by hand and cut from the game-stats schemas, the same pieces and bodies', () => {
  let rows = 0;
  for (const state of day.board.events.values()) {
    for (const complete of [false, true]) {
      const hand = writtenBox(state.info, state.game, complete, SIMULATOR_CATALOG);
      const plain = schemaBox(state.info, state.game, complete, SIMULATOR_CATALOG);
      assert.deepEqual(hand, plain, state.info.event_id);
      for (const [groups, serialise] of [
        [hand.teams, teamGameStats],
        [hand.players, playerGameStats],
      ] as const) {
        // The whole body, joined from the pieces, is what the response schema's serialiser writes.
        const whole = boxBody(groups, undefined, undefined);
        const text = whole.json.toString();
        assert.equal(text, serialise(JSON.parse(text)), state.info.event_id);
        rows += whole.values;
      }
    }
  }
  assert.ok(rows > 1000, `${rows} stat rows`);
});

test('season stats: written by hand and cut from the season-stats schemas, the same pieces', () => {
  let players = 0;
  let rows = 0;
  const teams = new Map<number, string>();
  for (const state of day.board.events.values()) for (const t of state.info.teams) teams.set(t.team_id, t.name);
  for (const [teamId, teamName] of teams) {
    const boxes = [...day.board.events.values()].flatMap((e) =>
      e.game && e.info.teams.some((t) => t.team_id === teamId) ? [e.game] : [],
    );
    const sums = sumBoxes(teamId, boxes);
    const scope = {
      teamId,
      teamName,
      year: 2026,
      seasonTypeId: 2,
      roster: SIMULATOR_CATALOG.rosterOf(teamId),
      stats: SIMULATOR_CATALOG,
    };
    const hand = seasonText(scope, sums);
    assert.deepEqual(hand, schemaSeason(scope, sums), `team ${teamId}`);
    players += hand.players.length;
    for (const g of [...hand.teams, ...hand.players]) rows += g.rows.length;
  }
  assert.ok(teams.size > 20 && players > 100 && rows > 1000, `${teams.size} teams, ${players} players, ${rows} rows`);
});

test('envelopes: written by hand and cut from the response schemas, the same bytes around the same lists', () => {
  const epochs = ['b7f3c2d1e0a94f6b', 'q"uote\\d', 'ünï\u2028'];
  const heads = [0, 7, day.board.head, ...views().map(([, v]) => v.head)];
  const cursors = heads.map((h, i) => cursorToUuid(h, DAY_NOW + i));
  const eventsV2 = fastJson(EventsEnvelope);
  const eventsV1 = fastJson(V1EventsEnvelope);
  const markets = fastJson(MarketsDeltaSchema);
  const eventDelta = fastJson(V2EventDeltaSchema);
  const v1Delta = fastJson(V1DeltaSchema);
  const plays = fastJson(PlaysPageSchema);
  for (const head of heads) {
    assert.equal(eventsOpen(head), listOpen(eventsV2({ meta: { delta_last_id: String(head) }, events: [] })));
    assert.equal(eventsOpen(head), listOpen(eventsV1({ meta: { delta_last_id: String(head) }, events: [] })));
  }
  for (const epoch of epochs)
    for (const [i, head] of heads.entries())
      for (const has_more of [false, true]) {
        const count = i * 37;
        const ids = { count, has_more, epoch };
        const byId = { ...ids, delta_last_id: String(head) };
        const byUuid = { ...ids, delta_last_id: cursors[i]! };
        assert.equal(pageOpen('deltas')(byId), listOpen(markets({ meta: byId, deltas: [] })));
        assert.equal(pageOpen('deltas')(byUuid), listOpen(eventDelta({ meta: byUuid, deltas: [] })));
        assert.equal(pageOpen('events')(byUuid), listOpen(v1Delta({ meta: byUuid, events: [] })));
      }
  for (const state of day.board.events.values()) {
    const last = state.game?.plays ?? 0;
    for (const next of [null, 1, last]) {
      const meta = { event_id: state.info.event_id, count: last, last_sequence: last, next_before_sequence: next };
      assert.equal(playsOpen(meta), listOpen(plays({ meta, plays: [] })));
    }
    // A /api/v2/delta item as the route writes it, and as the schema's serialiser writes it.
    const item = {
      id: cursors[2]!,
      event_id: state.info.event_id,
      sport_id: state.info.sport_id,
      updated_at: new Date(DAY_NOW).toISOString(),
      json: eventText.eventJson(state, wholeFilter(state), SIMULATOR_CATALOG).json,
    };
    assert.equal(JSON.stringify(item), fastJson(V2EventDeltaSchema.properties.deltas.items)(item));
  }
  // A whole events snapshot of the day, joined from the written views: what EventsEnvelope's serialiser writes.
  const states = [...day.board.events.values()];
  const body = joinJson(
    eventsOpen(day.board.head),
    states.map((s) => Buffer.from(eventText.eventJson(s, wholeFilter(s), SIMULATOR_CATALOG).json)),
    ']}',
  ).toString();
  assert.equal(body, eventsV2(JSON.parse(body)));
});
