import { setImmediate as loopTurn } from 'node:timers/promises';
import {
  assertNever,
  type Change,
  type ChangeRecord,
  decodeChange,
  type FuturesPriceFact,
  type PriceFact,
  type StatValue,
} from '../changelog/change.ts';
import { type FuturesHeader, type FuturesSettlement, OPEN_SETTLEMENT } from '../domain/futures.ts';
import { withHeader, withScore } from '../domain/event-header.ts';
import type { EventInfo } from '../domain/types.ts';
import type { LoadedState } from '../store/store.ts';
import type { Board } from './board.ts';
import {
  type EventState,
  type GameState,
  gameOf,
  type LineState,
  type MarketState,
  marketKey,
  type ParticipantState,
  type PriceState,
  participantKey,
} from './event-state.ts';
import { priceState, replaceFuturesPrice, replacePrice } from '../perf/price-state.ts';
import type { FuturesBoardState, FuturesMarketState } from './futures.ts';
import { SmallMap } from './small-map.ts';

/**
 * The one way committed changes reach a board: the ledger after each commit, a restart from the
 * store, and (with several nodes) a follower applying the bus. Changes must come in id order.
 */

/**
 * A price change with where it goes: the objects the ledger's planning found or made. `fresh` ones
 * are not on the board yet and are attached as they are, so the objects (and what serialisers keyed
 * on them) carry over. A stored row is decoded into the same shape by looking its path up by key.
 */
export interface PlannedPrice {
  kind: 'price';
  ev: EventState;
  market: MarketState;
  participant: ParticipantState;
  line: LineState;
  freshMarket: boolean;
  freshParticipant: boolean;
  freshLine: boolean;
  /**
   * The price's new values; the board takes the object over when it has no price of this book on the
   * line, else as perf/price-state.ts's `replacePrice` does.
   */
  state: PriceState;
}

/** What an applied change replaced: how a delayed view shows the board as it was before it. */
export type Applied =
  | {
      kind: 'price';
      event: EventState;
      market: MarketState;
      price: PriceState;
      /** The price as it was, or null when the change created it. */
      before: PriceState | null;
      beforeVersion: number;
    }
  | { kind: 'info'; event: EventState; before: EventInfo | null; beforeVersion: number }
  /** A futures board changed; no delayed plan is served futures, so nothing is kept to undo it. */
  | { kind: 'futures'; board: FuturesBoardState };

/** Told of every change applied to a board, with what it replaced (delayed views listen). */
export type ApplyObserver = (row: Pick<ChangeRecord, 'id' | 'at' | 'committed_ms'>, applied: Applied) => void;

function planned(ev: EventState, f: PriceFact): PlannedPrice {
  const key = marketKey(f.market_id, f.period_id);
  let market = ev.markets.get(key);
  const freshMarket = !market;
  market ??= { id: f.market_instance_id, market_id: f.market_id, period_id: f.period_id, participants: new Map() };
  let participant = market.participants.get(participantKey(f.participant_type, f.participant_id));
  const freshParticipant = !participant;
  participant ??= {
    id: f.participant_id,
    type: f.participant_type,
    name: f.participant_name,
    lines: new SmallMap(),
    mainLines: new SmallMap(),
  };
  let line = participant.lines.get(f.line);
  const freshLine = !line;
  line ??= { id: f.line_id, value: f.line, prices: new SmallMap() };
  const state = priceState(
    f.price_id,
    f.affiliate_id,
    f.price,
    f.is_main_line,
    f.updated_at,
    f.closed_at,
    f.price_delta,
    f.id,
    f.liquidity_usd,
    f.source_id,
    f.moved_from,
  );
  return { kind: 'price', ev, market, participant, line, freshMarket, freshParticipant, freshLine, state };
}

/**
 * Adds a new market to its event in market-instance-id order, the order a load from the store gives.
 * One ledger makes ids in creation order, so a market goes last; a feed that gives ids (a mirror) may
 * bring a market after one with a higher id, which then goes before it.
 */
function addMarket(ev: EventState, key: string, market: MarketState): void {
  let last: MarketState | undefined;
  for (const m of ev.markets.values()) last = m;
  ev.markets.set(key, market);
  if (last === undefined || last.id < market.id) return;
  const sorted = [...ev.markets].sort((a, b) => a[1].id - b[1].id);
  ev.markets.clear();
  for (const [k, m] of sorted) ev.markets.set(k, m);
}

/** Applies one price change; returns what it replaced. */
export function applyPlannedPrice(p: PlannedPrice): Applied {
  const { ev, market, participant, line, state: next } = p;
  const beforeVersion = ev.version;
  if (p.freshMarket) addMarket(ev, marketKey(market.market_id, market.period_id), market);
  if (p.freshParticipant) market.participants.set(participantKey(participant.type, participant.id), participant);
  if (p.freshLine) participant.lines.set(line.value, line);
  const current = line.prices.get(next.affiliate_id);
  let state = next;
  let before: PriceState | null = null;
  if (current) ({ price: state, before } = replacePrice(line.prices, current, next));
  else line.prices.set(next.affiliate_id, next);
  if (next.is_main_line) participant.mainLines.set(next.affiliate_id, line.value);
  else if (participant.mainLines.get(next.affiliate_id) === line.value) participant.mainLines.delete(next.affiliate_id);
  if (next.change_id > ev.version) ev.version = next.change_id;
  return { kind: 'price', event: ev, market, price: state, before, beforeVersion };
}

/**
 * Applies one change. Returns what it replaced, or undefined when it names an event the board does
 * not hold, or is a catalog record. `fresh` is the state the ledger planned for an event the change creates.
 */
export function applyChange(board: Board, change: Change, fresh?: EventState): Applied | undefined {
  switch (change.kind) {
    case 'price': {
      const ev = board.events.get(change.fact.event_id);
      if (!ev) return undefined;
      return applyPlannedPrice(planned(ev, change.fact));
    }
    case 'event': {
      const header = change.header;
      const state = board.events.get(header.event_id);
      if (!state) {
        const created = board.attachEvent(fresh ?? board.newEvent({ ...header }, change.id));
        created.version = change.id;
        return { kind: 'info', event: created, before: null, beforeVersion: 0 };
      }
      const before = state.info;
      const beforeVersion = state.version;
      board.replaceInfo(state, withHeader(before, header));
      state.version = change.id;
      return { kind: 'info', event: state, before, beforeVersion };
    }
    case 'score': {
      const state = board.events.get(change.event_id);
      if (!state) return undefined;
      const before = state.info;
      const beforeVersion = state.version;
      board.replaceInfo(state, withScore(before, change));
      state.version = change.id;
      return { kind: 'info', event: state, before, beforeVersion };
    }
    // Plays and stat rows leave the event's view as it was: a delayed view is told of them with
    // nothing to undo, so that its head stops before them until they are old enough (a delayed
    // plan's box score is then read from the store as of that head).
    case 'play': {
      const ev = board.events.get(change.event_id);
      if (!ev) return undefined;
      const game = gameOf(ev);
      game.plays = Math.max(game.plays, change.sequence);
      return { kind: 'info', event: ev, before: ev.info, beforeVersion: ev.version };
    }
    case 'stat': {
      const ev = board.events.get(change.event_id);
      if (!ev) return undefined;
      setStat(gameOf(ev), change.stat, change.id);
      return { kind: 'info', event: ev, before: ev.info, beforeVersion: ev.version };
    }
    case 'futures_board':
      return applyFuturesBoard(board, change.header, change.id, change.at);
    case 'futures_price':
      return applyFuturesPrice(board, change.fact);
    case 'futures_settlement':
      return applyFuturesSettlement(board, change.event_id, change.settlement, change.id);
    // Reference data: served as it is now by every plan, so no delayed view keeps what it replaced.
    case 'catalog':
      board.catalog.put(change.record, change.text);
      return undefined;
    // Delayed views read the version their head shows (SeasonRecords.at): nothing to undo.
    case 'season':
      board.seasonRecords.put(change.season, change.id, change.committed_ms, change.text);
      return undefined;
    default:
      return assertNever(change);
  }
}

/** Writes one box-score value, or takes it away. */
export function setStat(game: GameState, v: StatValue, changeId: number): void {
  if (changeId > game.version) game.version = changeId;
  if (v.removed) {
    if (v.player_id === undefined) {
      const team = game.teams.get(v.team_id);
      team?.delete(v.stat_id);
      // As a restart folds it: a team's values are made by its first value.
      if (team?.size === 0) game.teams.delete(v.team_id);
    } else {
      const line = game.players.get(v.player_id);
      line?.stats.delete(v.stat_id);
      // The box lists a player by his values: with none left he is not in it.
      if (line?.stats.size === 0) game.players.delete(v.player_id);
    }
    return;
  }
  const value = Number(v.value);
  if (v.player_id === undefined) {
    let team = game.teams.get(v.team_id);
    if (!team) {
      team = new Map();
      game.teams.set(v.team_id, team);
    }
    team.set(v.stat_id, value);
  } else {
    let line = game.players.get(v.player_id);
    if (!line) {
      line = { team_id: v.team_id, display_name: v.display_name ?? '', position: v.position ?? '', stats: new Map() };
      game.players.set(v.player_id, line);
    }
    line.stats.set(v.stat_id, value);
  }
}

/** A box score folded from an event's stat rows (a delayed plan's, read from the store up to its head). */
export function foldStats(rows: readonly ChangeRecord[]): GameState {
  const game: GameState = { plays: 0, teams: new Map(), players: new Map(), version: 0 };
  for (const row of rows) {
    const change = decodeChange(row);
    if (change.kind === 'stat') setStat(game, change.stat, change.id);
  }
  return game;
}

/** Opens a board, or replaces its header keeping the prices of the participants it still lists. */
function applyFuturesBoard(board: Board, header: FuturesHeader, id: number, at: string): Applied {
  const existing = board.futures.get(header.event_id);
  const markets = new Map<number, FuturesMarketState>();
  for (const m of header.markets) {
    const kept = existing?.markets.get(m.market_id);
    const participants = new Map(
      m.participants.map((p) => [p.id, { ...p, prices: kept?.participants.get(p.id)?.prices ?? new Map() }]),
    );
    markets.set(m.market_id, { market_id: m.market_id, name: m.name, participants });
  }
  if (existing) {
    existing.header = header;
    existing.markets = markets;
    existing.updated_at = at;
    existing.version = id;
    return { kind: 'futures', board: existing };
  }
  const state: FuturesBoardState = { header, markets, settlement: OPEN_SETTLEMENT, updated_at: at, version: id };
  board.futures.add(state);
  return { kind: 'futures', board: state };
}

function applyFuturesPrice(board: Board, f: FuturesPriceFact): Applied | undefined {
  const state = board.futures.get(f.event_id);
  const participant = state?.markets.get(f.market_id)?.participants.get(f.participant_id);
  if (!state || !participant) return undefined;
  const next = {
    affiliate_id: f.affiliate_id,
    price: f.price,
    price_delta: f.price_delta,
    updated_at: f.updated_at,
    closed_at: '',
    change_id: f.id,
  };
  const current = participant.prices.get(f.affiliate_id);
  if (current) replaceFuturesPrice(participant.prices, current, next);
  else participant.prices.set(f.affiliate_id, next);
  state.updated_at = f.updated_at;
  state.version = f.id;
  return { kind: 'futures', board: state };
}

/** Decides a board: its prices close at the settlement time. */
function applyFuturesSettlement(board: Board, eventId: string, s: FuturesSettlement, id: number): Applied | undefined {
  const state = board.futures.get(eventId);
  if (!state) return undefined;
  state.settlement = s;
  if (s.state !== 'open') {
    for (const m of state.markets.values())
      for (const p of m.participants.values())
        for (const price of p.prices.values()) if (price.closed_at === '') price.closed_at = s.settled_at;
    state.updated_at = s.settled_at;
  }
  state.version = id;
  return { kind: 'futures', board: state };
}

/** Applies stored rows in id order (a follower, or a catch-up read from the store). */
export function applyRows(board: Board, rows: readonly ChangeRecord[], observe?: ApplyObserver): void {
  for (const row of rows) {
    if (row.id <= board.head) continue;
    const applied = applyChange(board, decodeChange(row));
    if (applied && observe) observe(row, applied);
    board.head = row.id;
  }
}

/** Rows a load applies between two turns of the event loop. */
const LOAD_TURN_ROWS = 5000;

/**
 * How far a start's load of the store is: the part it reads and how much of that part is done, of
 * `total`; a `total` of 0 is not known ahead, and `done` then counts the rows read.
 */
export interface LoadProgress {
  /**
   * `recent events`: the search of the events changed within the longest delay (`done` the ids
   * searched, of those from the first such change to the head); `prices`: the newest row of each
   * price, in price id order (`done` the price id reached, of the highest); `box scores`: the values'
   * newest rows; `recent changes`: the changes applied again for the delayed views (`done` the ids
   * passed, of those up to the head).
   */
  part: 'recent events' | 'prices' | 'box scores' | 'recent changes';
  done: number;
  total: number;
}

/** Replaces a board's contents with a loaded state, telling `progress` at each part and every few thousand rows. */
export async function loadBoard(
  board: Board,
  loaded: LoadedState,
  progress?: (p: LoadProgress) => void,
): Promise<void> {
  board.reset();
  for (const e of loaded.events) board.attachEvent(board.newEvent(JSON.parse(e.info) as EventInfo, e.change_id));
  for (const m of loaded.markets) {
    const ev = board.events.get(m.event_id);
    if (!ev) continue;
    ev.markets.set(marketKey(m.market_id, m.period_id), {
      id: m.id,
      market_id: m.market_id,
      period_id: m.period_id,
      participants: new Map(),
    });
  }
  progress?.({ part: 'prices', done: 0, total: loaded.maxPriceId });
  let rows = 0;
  for await (const row of loaded.latestPrices) {
    applyChange(board, decodeChange(row));
    // A turn of the event loop now and then: the starting listener answers probes during a load.
    if (++rows % LOAD_TURN_ROWS === 0) {
      progress?.({ part: 'prices', done: row.price_id ?? 0, total: loaded.maxPriceId });
      await loopTurn();
    }
  }
  for (const { event_id, plays } of loaded.playCounts) {
    const ev = board.events.get(event_id);
    if (ev) gameOf(ev).plays = plays;
  }
  progress?.({ part: 'box scores', done: 0, total: 0 });
  let values = 0;
  for await (const row of loaded.statRows) {
    applyChange(board, decodeChange(row));
    if (++values % LOAD_TURN_ROWS === 0) {
      progress?.({ part: 'box scores', done: values, total: 0 });
      await loopTurn();
    }
  }
  // Futures rows in id order: a board's opening before its prices, its settlement after them.
  for (const row of loaded.futures) applyChange(board, decodeChange(row));
  for (const row of loaded.catalog) applyChange(board, decodeChange(row));
  // Above the loaded head they come again with the rows after it (a load at a past position).
  for (const row of loaded.seasonRecords) if (row.id <= loaded.headId) applyChange(board, decodeChange(row));
  for (const e of loaded.archived.events) board.archivedHeaders.set(e.event_id, JSON.parse(e.info) as EventInfo);
  board.seasons.load(loaded.archived.seasonTotals);
  board.head = loaded.headId;
}
