import type { PlannedPrice } from '../board/apply.ts';
import type { Board } from '../board/board.ts';
import {
  type EventState,
  type LineState,
  type MarketState,
  type ParticipantState,
  type PriceState,
  participantKey,
} from '../board/event-state.ts';
import { SmallMap } from '../board/small-map.ts';
import { type Change, type ChangeRecord, changesEvent, type StatValue } from '../changelog/change.ts';
import { layeredStats, type StatLookup, type StatTable } from '../catalog/stat-table.ts';
import type { EventInfo } from '../domain/types.ts';
import type { EventRecord, MarketRecord } from '../store/store.ts';
import { FuturesPlan } from './futures-plan.ts';
import type { GameCell } from './stat-rows.ts';
import type { PriceUpdate } from './updates.ts';

/** Markets with at most this many participants are searched by comparison, larger ones by key. */
const SCAN_PARTICIPANTS = 8;

export type Step = PlannedPrice | { kind: 'info'; change: Change; fresh?: EventState };

/**
 * One batch's rows and the state they lead to, planned over the committed board without changing
 * it: what the batch creates or changes is kept here, beside the objects it hangs from, until the
 * commit succeeds and the steps are applied.
 */
export class BatchPlan {
  readonly records: ChangeRecord[] = [];
  readonly steps: Step[] = [];
  readonly markets: MarketRecord[] = [];
  /** Events touched, with the last id that touched each (their new version). */
  readonly touched = new Map<string, number>();
  /** Events touched by a row that is not a price row: those whose stored record is written. */
  private readonly described = new Set<string>();
  /** Catalog records planned in this batch, by key: the text each key will have. */
  readonly catalogTexts = new Map<string, string>();
  /** Keys this batch's catalog records remove (unless a later record of the batch brings them again). */
  readonly removals = new Set<string>();
  /** Season records planned in this batch, by key (domain/season-stats.ts): the text each will have. */
  readonly seasonTexts = new Map<string, string>();
  /** Market names that market records of this batch give, by market id. */
  readonly marketNames = new Map<number, string>();
  /** Stat tables that stats records of this batch give, by sport (undefined: removed). */
  readonly statTables = new Map<number, StatTable | undefined>();
  private readonly freshEvents = new Map<string, EventState>();
  private readonly infos = new Map<string, EventInfo>();
  private readonly childMarkets = new Map<EventState, Map<string, MarketState>>();
  private readonly freshMarkets = new Set<MarketState>();
  private readonly freshParticipants = new Set<ParticipantState>();
  private readonly childParticipants = new Map<MarketState, ParticipantState[]>();
  private readonly childLines = new Map<ParticipantState, Map<string, LineState>>();
  /** Planned prices that replace a committed one, by price id; prices new to a line by line. */
  private readonly replaced = new Map<number, PriceState>();
  private readonly added = new Map<LineState, Map<number, PriceState>>();
  private readonly mainLines = new Map<ParticipantState, Map<number, string | undefined>>();
  private futuresPlan: FuturesPlan | undefined;

  constructor(
    private readonly board: Board,
    public head: number,
    readonly committedMs: number,
  ) {}

  /** The batch's futures, planned over the board's (made at the first futures update). */
  get futures(): FuturesPlan {
    this.futuresPlan ??= new FuturesPlan(this.board.futures);
    return this.futuresPlan;
  }

  /** A market's name as a price row of this batch shows it: the batch's own record, else the catalog's. */
  marketName(marketId: number): string {
    return this.marketNames.get(marketId) ?? this.board.catalog.marketName(marketId);
  }

  nextId(): number {
    this.head += 1;
    return this.head;
  }

  /** Play numbers and box-score values given out in this batch, beside the board's. */
  private readonly sequences = new Map<EventState, number>();
  /** Values planned in this batch by cell (undefined: taken away), beside the board's. */
  private readonly statValues = new Map<EventState, Map<string, { cell: GameCell; value: number | undefined }>>();

  nextSequence(ev: EventState): number {
    const next = (this.sequences.get(ev) ?? ev.game?.plays ?? 0) + 1;
    this.sequences.set(ev, next);
    return next;
  }

  statValue(ev: EventState, cell: GameCell): number | undefined {
    const planned = this.statValues.get(ev)?.get(cellKey(cell));
    if (planned !== undefined) return planned.value;
    const game = ev.game;
    if (!game) return undefined;
    const stats = cell.player_id === undefined ? game.teams.get(cell.team_id) : game.players.get(cell.player_id)?.stats;
    return stats?.get(cell.stat_id);
  }

  /** Every value the event's box holds, committed or planned so far (none taken away). */
  heldCells(ev: EventState): GameCell[] {
    const cells = new Map<string, GameCell>();
    const game = ev.game;
    if (game) {
      for (const [team_id, stats] of game.teams)
        for (const stat_id of stats.keys()) cells.set(cellKey({ team_id, stat_id }), { team_id, stat_id });
      for (const [player_id, line] of game.players)
        for (const stat_id of line.stats.keys()) {
          const cell = { team_id: line.team_id, player_id, stat_id };
          cells.set(cellKey(cell), cell);
        }
    }
    for (const [key, planned] of this.statValues.get(ev) ?? []) {
      if (planned.value === undefined) cells.delete(key);
      else cells.set(key, planned.cell);
    }
    return [...cells.values()];
  }

  setStatValue(ev: EventState, stat: StatValue): void {
    const cell: GameCell = { team_id: stat.team_id, stat_id: stat.stat_id };
    if (stat.player_id !== undefined) cell.player_id = stat.player_id;
    inner(this.statValues, ev).set(cellKey(stat), { cell, value: stat.removed ? undefined : Number(stat.value) });
    if (stat.display_name !== undefined && stat.player_id !== undefined) {
      let named = this.namedPlayers.get(ev);
      if (!named) {
        named = new Set();
        this.namedPlayers.set(ev, named);
      }
      named.add(stat.player_id);
    }
  }

  /** The sports' stats as the catalog has them with this batch's stats records so far. */
  stats(): StatLookup {
    return layeredStats(this.board.catalog, this.statTables);
  }

  /** Whether a player of the event has a line already (committed or planned in this batch). */
  knowsPlayer(ev: EventState, playerId: number): boolean {
    return ev.game?.players.has(playerId) === true || this.namedPlayers.get(ev)?.has(playerId) === true;
  }

  private readonly namedPlayers = new Map<EventState, Set<number>>();

  add(record: ChangeRecord, step: Step): void {
    this.records.push(record);
    this.steps.push(step);
    // Futures rows name boards, which have no event record.
    if (!changesEvent(record.kind)) return;
    this.touched.set(record.event_id, record.id);
    if (record.kind !== 'price') this.described.add(record.event_id);
  }

  event(eventId: string): EventState | undefined {
    return this.board.events.get(eventId) ?? this.freshEvents.get(eventId);
  }

  freshEvent(header: EventInfo, id: number): EventState {
    const state = this.board.newEvent({ ...header }, id);
    this.freshEvents.set(header.event_id, state);
    return state;
  }

  info(eventId: string): EventInfo | undefined {
    return this.infos.get(eventId) ?? this.board.events.get(eventId)?.info;
  }

  setInfo(eventId: string, info: EventInfo): void {
    this.infos.set(eventId, info);
  }

  /**
   * The stored event records that the batch changes, as they will be after it. An event only some
   * of whose prices changed keeps its record: price rows change nothing in it but its version, and
   * a load takes the version from the newest row of each price too (board/apply.ts), so it finds
   * the one this batch leaves.
   */
  eventRecords(): EventRecord[] {
    const out: EventRecord[] = [];
    for (const [eventId, version] of this.touched) {
      if (!this.described.has(eventId)) continue;
      const info = this.info(eventId)!;
      out.push({
        event_id: eventId,
        sport_id: info.sport_id,
        event_date: info.event_date,
        info: JSON.stringify(info),
        change_id: version,
      });
    }
    return out;
  }

  market(ev: EventState, key: string): MarketState | undefined {
    return ev.markets.get(key) ?? this.childMarkets.get(ev)?.get(key);
  }

  isFreshMarket(market: MarketState): boolean {
    return this.freshMarkets.has(market);
  }

  addMarket(ev: EventState, key: string, market: MarketState): void {
    inner(this.childMarkets, ev).set(key, market);
    this.freshMarkets.add(market);
    this.markets.push({
      id: market.id,
      event_id: ev.info.event_id,
      market_id: market.market_id,
      period_id: market.period_id,
    });
  }

  /** Whether the batch brings this participant to its market (it is not on the board yet). */
  isFreshParticipant(participant: ParticipantState): boolean {
    return this.freshParticipants.has(participant);
  }

  /** The market's participant the update names, committed or planned; a new one is planned when it has none. */
  participant(market: MarketState, u: PriceUpdate): ParticipantState {
    const own = market.participants;
    if (own.size <= SCAN_PARTICIPANTS) {
      // A market has a few participants: comparing them is cheaper than building and hashing a key.
      for (const p of own.values()) if (p.id === u.participant_id && p.type === u.participant_type) return p;
    } else {
      const p = own.get(participantKey(u.participant_type, u.participant_id));
      if (p) return p;
    }
    let added = this.childParticipants.get(market);
    if (added) {
      for (const p of added) if (p.id === u.participant_id && p.type === u.participant_type) return p;
    } else {
      added = [];
      this.childParticipants.set(market, added);
    }
    const p: ParticipantState = {
      id: u.participant_id,
      type: u.participant_type,
      name: u.participant_name,
      lines: new SmallMap(),
      mainLines: new SmallMap(),
    };
    added.push(p);
    this.freshParticipants.add(p);
    return p;
  }

  line(participant: ParticipantState, value: string): LineState | undefined {
    return participant.lines.get(value) ?? this.childLines.get(participant)?.get(value);
  }

  addLine(participant: ParticipantState, line: LineState): void {
    inner(this.childLines, participant).set(line.value, line);
  }

  price(line: LineState, affiliateId: number): PriceState | undefined {
    const committed = line.prices.get(affiliateId);
    if (committed) return this.replaced.get(committed.id) ?? committed;
    return this.added.get(line)?.get(affiliateId);
  }

  /** `prev` is what `price(line, state.affiliate_id)` gave before this state was planned. */
  setPrice(line: LineState, state: PriceState, prev: PriceState | undefined): void {
    if (prev && line.prices.get(state.affiliate_id) !== undefined) this.replaced.set(state.id, state);
    else inner(this.added, line).set(state.affiliate_id, state);
  }

  mainLine(participant: ParticipantState, affiliateId: number): string | undefined {
    const planned = this.mainLines.get(participant);
    if (planned?.has(affiliateId)) return planned.get(affiliateId);
    return participant.mainLines.get(affiliateId);
  }

  setMainLine(participant: ParticipantState, affiliateId: number, value: string | undefined): void {
    inner(this.mainLines, participant).set(affiliateId, value);
  }
}

const cellKey = (c: GameCell): string => `${c.team_id}:${c.player_id ?? ''}:${c.stat_id}`;

/** The map kept under `key` in `outer`, made on first use. */
function inner<K, K2, V>(outer: Map<K, Map<K2, V>>, key: K): Map<K2, V> {
  let map = outer.get(key);
  if (!map) {
    map = new Map();
    outer.set(key, map);
  }
  return map;
}
