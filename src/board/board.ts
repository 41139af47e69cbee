import type { FuturesState } from '../domain/futures.ts';
import type { EventInfo, ParticipantType } from '../domain/types.ts';
import type { FeedStateReader, PriceKey, PriceSnapshot } from './feed-state.ts';
import type { BoardView } from './board-view.ts';
import { type FuturesBoardState, FuturesBoards } from './futures.ts';
import { type ArchivedSeason, SeasonArchive } from './season-archive.ts';

/** One sportsbook's current price on one line. */
export interface PriceState {
  /** market_line_price id. */
  id: number;
  affiliate_id: number;
  price: number;
  is_main_line: boolean;
  updated_at: string;
  /** '' while active. */
  closed_at: string;
  price_delta: number;
  liquidity_usd?: number;
  source_id?: string;
  /**
   * Set when the row that last wrote this price moved the book's main line here: the line value it
   * moved from (what the line-based interface's point deltas are measured against).
   */
  moved_from?: string;
  /** Id of the change row that last wrote this price. */
  change_id: number;
}

/**
 * A price state with its optional fields in the literal. V8 keeps a literal's properties inside the
 * object; one added afterwards goes to a property array of its own (40-60 bytes), which every state
 * of the exchange's and the prediction market's prices had, and every copy the delayed views keep of
 * them (2.2 MB in a heap snapshot of a mixed load). `moved_from` is rare (main-line moves) and added.
 */
export function priceState(
  id: number,
  affiliateId: number,
  price: number,
  isMainLine: boolean,
  updatedAt: string,
  closedAt: string,
  priceDelta: number,
  changeId: number,
  liquidityUsd: number | undefined,
  sourceId: string | undefined,
  movedFrom: string | undefined,
): PriceState {
  let state: PriceState;
  if (liquidityUsd !== undefined && sourceId !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      liquidity_usd: liquidityUsd,
      source_id: sourceId,
    };
  } else if (liquidityUsd !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      liquidity_usd: liquidityUsd,
    };
  } else if (sourceId !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      source_id: sourceId,
    };
  } else {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
    };
  }
  if (movedFrom !== undefined) state.moved_from = movedFrom;
  return state;
}

export interface LineState {
  id: string;
  value: string;
  prices: Map<number, PriceState>;
}

export interface ParticipantState {
  id: number;
  type: ParticipantType;
  name: string;
  lines: Map<string, LineState>;
  /** Current main line value per affiliate_id (the flag is per book, participant, market and period). */
  mainLines: Map<number, string>;
}

export interface MarketState {
  id: number;
  market_id: number;
  period_id: number;
  participants: Map<string, ParticipantState>;
}

/** A player's line in an event's box score. */
export interface PlayerLine {
  team_id: number;
  display_name: string;
  position: string;
  /** stat id -> value. */
  stats: Map<number, number>;
}

/**
 * An event's plays and box score as the stat rows left them. The plays themselves stay in the
 * store (their pages are read from it); the board keeps their count, which numbers the next one.
 */
export interface GameState {
  /** Sequence of the last play (0 before the first). */
  plays: number;
  /** team id -> stat id -> value. */
  teams: Map<number, Map<number, number>>;
  /** player id -> line, in the order players first appeared. */
  players: Map<number, PlayerLine>;
  /** Id of the last stat row applied (0 before any): the key that invalidates a cached box. */
  version: number;
}

export interface EventState {
  info: EventInfo;
  /** Plays and box score, from the first play on. */
  game?: GameState;
  /** event_date in epoch ms, for date windows. */
  startMs: number;
  /** Keyed by `${market_id}:${period_id}`, in creation order. */
  markets: Map<string, MarketState>;
  /** Id of the last change row that touched this event: the key that invalidates cached views. */
  version: number;
}

/** The event's game state, made on first use. */
export function gameOf(ev: EventState): GameState {
  ev.game ??= { plays: 0, teams: new Map(), players: new Map(), version: 0 };
  return ev.game;
}

export const marketKey = (marketId: number, periodId: number): string => `${marketId}:${periodId}`;
export const participantKey = (type: ParticipantType, id: number): string => `${type}:${id}`;

/** A price as a feed reads it back from the committed state. */
function snapshotOf(p: PriceState): PriceSnapshot {
  return { price: p.price, is_main_line: p.is_main_line, closed: p.closed_at !== '' };
}

/**
 * The in-memory current state that every snapshot is served from. Only board/apply.ts mutates it,
 * with rows the store has committed, so a reader never sees uncommitted data.
 */
export class Board implements FeedStateReader, BoardView {
  readonly events = new Map<string, EventState>();
  private readonly bySport = new Map<number, EventState[]>();
  private sportsDirty = new Set<number>();
  /** Futures boards: apart from the events, so no event route or feed meets them. */
  readonly futures = new FuturesBoards();
  /**
   * Archived events (finished, off the board; their reads come from the store): the headers of
   * recent ones, so that a feed resuming knows they are over, and the season totals of their games.
   */
  readonly archivedHeaders = new Map<string, EventInfo>();
  readonly seasons = new SeasonArchive();
  head = 0;

  /** Forgets everything; the ledger reloads the committed state after this. */
  reset(): void {
    this.futures.clear();
    this.archivedHeaders.clear();
    this.seasons.clear();
    this.events.clear();
    this.bySport.clear();
    this.sportsDirty.clear();
  }

  getEvent(eventId: string): EventState | undefined {
    return this.events.get(eventId);
  }

  /** A new event's state, not yet on the board (attachEvent puts it there). */
  newEvent(info: EventInfo, version: number): EventState {
    return { info, startMs: Date.parse(info.event_date), markets: new Map(), version };
  }

  /** Puts a new event on the board (the caller checked that it is absent). */
  attachEvent(state: EventState): EventState {
    this.events.set(state.info.event_id, state);
    this.addToSport(state);
    return state;
  }

  /** Takes an archived event off the board; its header stays among the archived headers. */
  evict(state: EventState): void {
    const id = state.info.event_id;
    if (this.events.get(id) !== state) return;
    this.events.delete(id);
    const list = this.bySport.get(state.info.sport_id);
    if (list) list.splice(list.indexOf(state), 1);
    this.archivedHeaders.set(id, state.info);
  }

  archivedSeason(sportId: number, teamId: number, year: number, seasonType: string): ArchivedSeason | undefined {
    return this.seasons.get(sportId, teamId, year, seasonType);
  }

  /** Replaces an event's header; a changed date or sport re-sorts the indexes. */
  replaceInfo(state: EventState, info: EventInfo): void {
    const old = state.info;
    if (old.sport_id !== info.sport_id) {
      const list = this.bySport.get(old.sport_id);
      if (list) list.splice(list.indexOf(state), 1);
      state.info = info;
      state.startMs = Date.parse(info.event_date);
      this.addToSport(state);
      return;
    }
    if (old.event_date !== info.event_date) this.sportsDirty.add(info.sport_id);
    state.info = info;
    state.startMs = Date.parse(info.event_date);
  }

  private addToSport(state: EventState): void {
    let list = this.bySport.get(state.info.sport_id);
    if (!list) {
      list = [];
      this.bySport.set(state.info.sport_id, list);
    }
    list.push(state);
    this.sportsDirty.add(state.info.sport_id);
  }

  /** The sport's events ordered by scheduled start, then id. */
  eventsOfSport(sportId: number): readonly EventState[] {
    const list = this.bySport.get(sportId) ?? [];
    if (this.sportsDirty.has(sportId)) {
      list.sort((a, b) => a.startMs - b.startMs || a.info.event_id.localeCompare(b.info.event_id));
      this.sportsDirty.delete(sportId);
    }
    return list;
  }

  /** Events of a sport whose start lies in [fromMs, toMs). */
  eventsInWindow(sportId: number, fromMs: number, toMs: number): EventState[] {
    return this.eventsOfSport(sportId).filter((e) => e.startMs >= fromMs && e.startMs < toMs);
  }

  getFutures(eventId: string): FuturesBoardState | undefined {
    return this.futures.get(eventId);
  }

  futuresOfSport(sportId: number): readonly FuturesBoardState[] {
    return this.futures.ofSport(sportId);
  }

  // FeedStateReader

  event(eventId: string): EventInfo | undefined {
    return this.events.get(eventId)?.info ?? this.archivedHeaders.get(eventId);
  }

  *eventIds(): Iterable<string> {
    yield* this.events.keys();
    yield* this.archivedHeaders.keys();
  }

  price(key: PriceKey): PriceSnapshot | undefined {
    const p = this.findPrice(key);
    return p ? snapshotOf(p) : undefined;
  }

  linePrices(group: Omit<PriceKey, 'line'>): ReadonlyMap<string, PriceSnapshot> {
    const out = new Map<string, PriceSnapshot>();
    const market = this.events.get(group.event_id)?.markets.get(marketKey(group.market_id, group.period_id));
    if (!market) return out;
    for (const participant of market.participants.values()) {
      if (participant.id !== group.participant_id) continue;
      for (const [value, line] of participant.lines) {
        const p = line.prices.get(group.affiliate_id);
        if (p && !out.has(value)) out.set(value, snapshotOf(p));
      }
    }
    return out;
  }

  futuresState(eventId: string): FuturesState | undefined {
    return this.futures.get(eventId)?.settlement.state;
  }

  headId(): number {
    return this.head;
  }

  playerStat(eventId: string, playerId: number, statId: number): number {
    return this.events.get(eventId)?.game?.players.get(playerId)?.stats.get(statId) ?? 0;
  }

  private findPrice(key: PriceKey): PriceState | undefined {
    const market = this.events.get(key.event_id)?.markets.get(marketKey(key.market_id, key.period_id));
    if (!market) return undefined;
    for (const participant of market.participants.values()) {
      if (participant.id !== key.participant_id) continue;
      const p = participant.lines.get(key.line)?.prices.get(key.affiliate_id);
      if (p) return p;
    }
    return undefined;
  }
}
