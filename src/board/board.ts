import { Catalog } from '../catalog/catalog.ts';
import type { FuturesState } from '../domain/futures.ts';
import type { EventInfo } from '../domain/types.ts';
import type { BoardView } from './board-view.ts';
import { type EventState, marketKey, type PriceState } from './event-state.ts';
import type { FeedStateReader, PriceKey, PriceSnapshot } from './feed-state.ts';
import { type FuturesBoardState, FuturesBoards } from './futures.ts';
import { type ArchivedSeason, SeasonArchive } from './season-archive.ts';
import { SeasonRecords } from './season-records.ts';

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
  /** Sports, books, market definitions, teams and rosters: the newest catalog row of every key. */
  readonly catalog = new Catalog();
  /** Season aggregates a source published (season rows): served in place of the sums of games held. */
  readonly seasonRecords = new SeasonRecords();
  head = 0;

  /** Forgets everything; the ledger reloads the committed state after this. */
  reset(): void {
    this.futures.clear();
    this.catalog.clear();
    this.seasonRecords.clear();
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
