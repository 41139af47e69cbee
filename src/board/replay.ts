import type { EventInfo } from '../domain/types.ts';
import { type PriceChange, parsePriceChange } from '../ledger/price-change.ts';
import type { ChangeRecord, LoadedState } from '../store/store.ts';
import { type Board, type MarketState, marketKey, type PriceState, participantKey } from './board.ts';

/**
 * Applies committed change rows to a Board: how a board is rebuilt after a restart, and how a
 * delayed board follows the live one. Rows must come in id order.
 */

export function applyPriceChange(board: Board, c: PriceChange): void {
  const ev = board.events.get(c.event_id);
  if (!ev) return;
  const key = marketKey(c.market_id, c.period_id);
  let market = ev.markets.get(key);
  if (!market) {
    market = {
      id: c.market_instance_id,
      market_id: c.market_id,
      period_id: c.period_id,
      participants: new Map(),
    };
    ev.markets.set(key, market);
  }
  const pKey = participantKey(c.participant_type, c.participant_id);
  let participant = market.participants.get(pKey);
  if (!participant) {
    participant = {
      id: c.participant_id,
      type: c.participant_type,
      name: c.participant_name,
      lines: new Map(),
      mainLines: new Map(),
    };
    market.participants.set(pKey, participant);
  }
  let line = participant.lines.get(c.line);
  if (!line) {
    line = { id: c.line_id, value: c.line, prices: new Map() };
    participant.lines.set(c.line, line);
  }
  const state: PriceState = {
    id: c.price_id,
    affiliate_id: c.affiliate_id,
    price: Number(c.price),
    is_main_line: c.is_main_line,
    updated_at: c.updated_at,
    closed_at: c.closed_at,
    price_delta: c.price_delta,
    change_id: c.id,
  };
  if (c.liquidity_usd !== undefined) state.liquidity_usd = c.liquidity_usd;
  if (c.source_id !== undefined) state.source_id = c.source_id;
  line.prices.set(c.affiliate_id, state);
  if (c.is_main_line) participant.mainLines.set(c.affiliate_id, c.line);
  else if (participant.mainLines.get(c.affiliate_id) === c.line) participant.mainLines.delete(c.affiliate_id);
  ev.version = Math.max(ev.version, c.id);
}

/** Applies any committed row: an event header, a score or a price. */
export function applyChange(board: Board, row: ChangeRecord): void {
  if (row.kind === 'price') {
    applyPriceChange(board, parsePriceChange(row.payload, row.detail));
  } else if (row.kind === 'event') {
    const header = JSON.parse(row.payload) as EventInfo;
    const state = board.events.get(header.event_id);
    if (!state) {
      board.addEvent(header, row.id);
    } else {
      const info: EventInfo = { ...header };
      if (state.info.score) info.score = state.info.score;
      if (state.info.live_game_state) info.live_game_state = state.info.live_game_state;
      board.replaceInfo(state, info);
      state.version = row.id;
    }
  } else {
    const state = board.events.get(row.event_id);
    if (!state) return;
    const u = JSON.parse(row.payload) as {
      score: EventInfo['score'];
      live_game_state?: Record<string, unknown> | null;
    };
    const info: EventInfo = { ...state.info, score: u.score };
    if (u.live_game_state === null) delete info.live_game_state;
    else if (u.live_game_state !== undefined) info.live_game_state = u.live_game_state;
    board.replaceInfo(state, info);
    state.version = row.id;
  }
  board.head = Math.max(board.head, row.id);
}

/** Replaces a board's contents with a loaded state. */
export function loadBoard(board: Board, loaded: LoadedState): void {
  board.reset();
  board.head = loaded.headId;
  for (const e of loaded.events) board.addEvent(JSON.parse(e.info) as EventInfo, e.change_id);
  for (const m of loaded.markets) {
    const ev = board.events.get(m.event_id);
    if (!ev) continue;
    const market: MarketState = {
      id: m.id,
      market_id: m.market_id,
      period_id: m.period_id,
      participants: new Map(),
    };
    ev.markets.set(marketKey(m.market_id, m.period_id), market);
  }
  for (const row of loaded.latestPrices) applyPriceChange(board, parsePriceChange(row.payload, row.detail));
}
