import { createHash } from 'node:crypto';
import {
  type Board,
  type EventState,
  type LineState,
  type MarketState,
  marketKey,
  type ParticipantState,
  type PriceState,
  participantKey,
} from '../board/board.ts';
import { loadBoard } from '../board/replay.ts';
import type { Bus } from '../bus/bus.ts';
import { priceDelta } from '../domain/odds.ts';
import type { ChangeType, EventInfo } from '../domain/types.ts';
import type { ChangeRecord, Commit, EventRecord, MarketRecord, Store } from '../store/store.ts';
import type { PriceDetail } from './price-change.ts';
import { DeltaRowWriter, serialisePriceDetail } from './serialise.ts';
import type { LedgerSink, PriceUpdate, UpdateBatch } from './updates.ts';

/** Line id: 32 hex characters, a pure function of what identifies the line, so it never changes. */
export function lineId(
  eventId: string,
  marketId: number,
  periodId: number,
  pKey: string,
  value: string,
): string {
  return createHash('md5').update(`${eventId}|${marketId}|${periodId}|${pKey}|${value}`).digest('hex');
}

export class LedgerError extends Error {}

/**
 * The single writer. For each batch it assigns change ids in commit order, derives change_type,
 * previous_price, price_delta and closed_at, keeps the main-line flag on exactly one line per
 * book and participant, commits one store transaction, then updates the Board and publishes.
 */
export class Ledger implements LedgerSink {
  private nextMarketId = 1;
  private nextPriceId = 1;
  private lastCommitMs = 0;
  /** The market the last price update went to, and its event; forgotten when the board reloads. */
  private lastMarket: MarketState | undefined;
  private lastMarketEvent: EventState | undefined;
  private readonly rows = new DeltaRowWriter();

  constructor(
    private readonly store: Store,
    private readonly board: Board,
    private readonly bus: Bus,
    private readonly now: () => number = Date.now,
  ) {
    this.loadBoard();
  }

  get headId(): number {
    return this.board.head;
  }

  apply(batch: UpdateBatch): void {
    this.validate(batch);
    // One spelling of time in every row (24-character UTC ISO), so stored times compare as strings.
    const at = new Date(batch.at).toISOString();
    // Commit times never go backwards along the ids, even if the wall clock does.
    this.lastCommitMs = Math.max(this.lastCommitMs, this.now());
    const pending = new PendingCommit(this.board.head, this.lastCommitMs);
    try {
      for (const u of batch.updates) {
        if (u.kind === 'event') this.applyEvent(pending, u.event, at);
        else if (u.kind === 'score') this.applyScore(pending, u.event_id, u, at);
        else this.applyPrice(pending, u, at);
      }
      if (pending.changes.length === 0 && pending.markets.length === 0) return;
      const commit: Commit = {
        changes: pending.changes,
        markets: pending.markets,
        events: [...pending.touchedEvents].map((id) => this.eventRecord(this.board.events.get(id)!)),
      };
      this.store.commit(commit);
    } catch (err) {
      // The board was changed in step with the pending rows; the store refused them, so the board
      // goes back to what is committed. Nothing in between was visible: this all runs synchronously.
      this.loadBoard();
      throw err;
    }
    this.board.head = pending.head;
    this.bus.publish({
      changes: pending.changes,
      eventIds: [...pending.touchedEvents],
      headId: pending.head,
    });
  }

  /** Rejects a batch that names an unknown event before anything is written. */
  private validate(batch: UpdateBatch): void {
    if (Number.isNaN(Date.parse(batch.at))) throw new LedgerError(`batch time is not ISO 8601: ${batch.at}`);
    const created = new Set<string>();
    for (const u of batch.updates) {
      if (u.kind === 'event') created.add(u.event.event_id);
      else if (!created.has(u.event_id) && !this.board.events.has(u.event_id)) {
        throw new LedgerError(`update names an unknown event: ${u.event_id}`);
      }
      if (u.kind === 'price' && !Number.isFinite(u.price)) {
        throw new LedgerError(`price is not a finite number for event ${u.event_id}`);
      }
    }
  }

  private applyEvent(pending: PendingCommit, header: EventInfo, at: string): void {
    const state = this.board.events.get(header.event_id);
    if (state) {
      const { score: _s, live_game_state: _l, ...current } = state.info;
      if (JSON.stringify(current) === JSON.stringify(header)) return;
    }
    const id = pending.nextId();
    const info: EventInfo = { ...header };
    if (state?.info.score) info.score = state.info.score;
    if (state?.info.live_game_state) info.live_game_state = state.info.live_game_state;
    if (state) {
      this.board.replaceInfo(state, info);
      state.version = id;
    } else {
      this.board.addEvent(info, id);
    }
    pending.add({
      id,
      kind: 'event',
      event_id: header.event_id,
      sport_id: header.sport_id,
      at,
      price_id: null,
      affiliate_id: null,
      market_id: null,
      committed_ms: pending.committedMs,
      payload: JSON.stringify(header),
      detail: null,
    });
  }

  private applyScore(
    pending: PendingCommit,
    eventId: string,
    u: { score: EventInfo['score']; live_game_state?: Record<string, unknown> | null },
    at: string,
  ): void {
    const state = this.board.events.get(eventId)!;
    const info: EventInfo = { ...state.info, score: u.score };
    if (u.live_game_state === null) delete info.live_game_state;
    else if (u.live_game_state !== undefined) info.live_game_state = u.live_game_state;
    const id = pending.nextId();
    this.board.replaceInfo(state, info);
    state.version = id;
    pending.add({
      id,
      kind: 'score',
      event_id: eventId,
      sport_id: info.sport_id,
      at,
      price_id: null,
      affiliate_id: null,
      market_id: null,
      committed_ms: pending.committedMs,
      payload: JSON.stringify({ score: u.score, live_game_state: u.live_game_state }),
      detail: null,
    });
  }

  private applyPrice(pending: PendingCommit, u: PriceUpdate, at: string): void {
    const ev = this.board.events.get(u.event_id)!;
    const market = this.market(pending, ev, u.market_id, u.period_id);
    const participant = this.participant(market, u);
    let line = participant.lines.get(u.line);
    if (!line) {
      const pKey = participantKey(u.participant_type, u.participant_id);
      line = {
        id: lineId(u.event_id, u.market_id, u.period_id, pKey, u.line),
        value: u.line,
        prices: new Map(),
      };
      participant.lines.set(u.line, line);
    }
    const prev = line.prices.get(u.affiliate_id);
    const wantMain = u.is_main_line ?? prev?.is_main_line ?? false;
    const closedAt = u.closed ? prev?.closed_at || at : '';
    if (
      prev &&
      prev.price === u.price &&
      prev.closed_at === closedAt &&
      prev.is_main_line === wantMain &&
      prev.liquidity_usd === u.liquidity_usd &&
      prev.source_id === u.source_id
    ) {
      return;
    }
    let movedFrom: PriceState | undefined;
    if (wantMain) {
      const oldValue = participant.mainLines.get(u.affiliate_id);
      if (oldValue !== undefined && oldValue !== u.line) {
        const oldLine = participant.lines.get(oldValue);
        const old = oldLine?.prices.get(u.affiliate_id);
        if (oldLine && old?.is_main_line) {
          movedFrom = old;
          this.writePrice(pending, ev, market, participant, oldLine, old, {
            price: old.price,
            is_main_line: false,
            closed_at: old.closed_at,
            liquidity_usd: old.liquidity_usd,
            source_id: old.source_id,
            at,
          });
        }
      }
      participant.mainLines.set(u.affiliate_id, u.line);
    } else if (prev?.is_main_line && participant.mainLines.get(u.affiliate_id) === u.line) {
      participant.mainLines.delete(u.affiliate_id);
    }
    this.writePrice(pending, ev, market, participant, line, prev, {
      price: u.price,
      is_main_line: wantMain,
      closed_at: closedAt,
      liquidity_usd: u.liquidity_usd,
      source_id: u.source_id,
      at,
      affiliate_id: u.affiliate_id,
      movedFrom,
    });
  }

  private writePrice(
    pending: PendingCommit,
    ev: EventState,
    market: MarketState,
    participant: ParticipantState,
    line: LineState,
    prev: PriceState | undefined,
    next: {
      price: number;
      is_main_line: boolean;
      closed_at: string;
      liquidity_usd?: number;
      source_id?: string;
      at: string;
      affiliate_id?: number;
      /** The book's previous main line, when this write moves the main line here. */
      movedFrom?: PriceState;
    },
  ): void {
    const affiliateId = prev?.affiliate_id ?? next.affiliate_id!;
    // A main-line move is a line_change on both lines, even when the new line is priced for the
    // first time; its previous price is then the one the side had on the old main line.
    const previous = prev ?? next.movedFrom;
    const changeType: ChangeType =
      next.movedFrom || (prev && prev.is_main_line !== next.is_main_line)
        ? 'line_change'
        : prev
          ? 'price_change'
          : 'new';
    const previousPrice = previous?.price;
    const id = pending.nextId();
    const delta = priceDelta(previousPrice, next.price);
    let state: PriceState;
    if (
      prev &&
      (prev.liquidity_usd === undefined) === (next.liquidity_usd === undefined) &&
      (prev.source_id === undefined) === (next.source_id === undefined)
    ) {
      // Rewritten in place when its shape stays: a new object per update would outlive the young
      // generation (a price is rewritten every few batches) and be promoted, only to die there.
      // A refused batch rebuilds the whole board from the store, so nothing needs the old object.
      state = prev;
      state.price = next.price;
      state.is_main_line = next.is_main_line;
      state.updated_at = next.at;
      state.closed_at = next.closed_at;
      state.price_delta = delta;
      state.change_id = id;
    } else {
      state = {
        id: prev?.id ?? this.nextPriceId++,
        affiliate_id: affiliateId,
        price: next.price,
        is_main_line: next.is_main_line,
        updated_at: next.at,
        closed_at: next.closed_at,
        price_delta: delta,
        change_id: id,
      };
      line.prices.set(affiliateId, state);
    }
    if (next.liquidity_usd !== undefined) state.liquidity_usd = next.liquidity_usd;
    if (next.source_id !== undefined) state.source_id = next.source_id;
    ev.version = id;
    const detail: PriceDetail = {
      price_id: state.id,
      period_id: market.period_id,
      market_instance_id: market.id,
      line_id: line.id,
      price_delta: state.price_delta,
    };
    if (state.liquidity_usd !== undefined) detail.liquidity_usd = state.liquidity_usd;
    if (state.source_id !== undefined) detail.source_id = state.source_id;
    pending.add({
      id,
      kind: 'price',
      event_id: ev.info.event_id,
      sport_id: ev.info.sport_id,
      at: next.at,
      price_id: state.id,
      affiliate_id: affiliateId,
      market_id: market.market_id,
      committed_ms: pending.committedMs,
      payload: this.rows.write(
        id,
        ev.info,
        affiliateId,
        market,
        participant,
        line,
        next.price,
        previousPrice,
        changeType,
        next.is_main_line,
        next.closed_at,
        next.at,
      ),
      detail: serialisePriceDetail(detail),
    });
  }

  private market(pending: PendingCommit, ev: EventState, marketId: number, periodId: number): MarketState {
    // Feeds send a market's prices together: the last market found saves building and hashing its key.
    const last = this.lastMarket;
    if (last && last.market_id === marketId && last.period_id === periodId && this.lastMarketEvent === ev) {
      return last;
    }
    const key = marketKey(marketId, periodId);
    let market = ev.markets.get(key);
    if (!market) {
      market = { id: this.nextMarketId++, market_id: marketId, period_id: periodId, participants: new Map() };
      ev.markets.set(key, market);
      pending.markets.push({
        id: market.id,
        event_id: ev.info.event_id,
        market_id: marketId,
        period_id: periodId,
      });
    }
    this.lastMarket = market;
    this.lastMarketEvent = ev;
    return market;
  }

  private participant(market: MarketState, u: PriceUpdate): ParticipantState {
    let participant: ParticipantState | undefined;
    if (market.participants.size <= SCAN_PARTICIPANTS) {
      // A market has a few participants: comparing them is cheaper than building and hashing a key.
      for (const p of market.participants.values()) {
        if (p.id === u.participant_id && p.type === u.participant_type) return p;
      }
    } else {
      participant = market.participants.get(participantKey(u.participant_type, u.participant_id));
      if (participant) return participant;
    }
    participant = {
      id: u.participant_id,
      type: u.participant_type,
      name: u.participant_name,
      lines: new Map(),
      mainLines: new Map(),
    };
    market.participants.set(participantKey(u.participant_type, u.participant_id), participant);
    return participant;
  }

  private eventRecord(state: EventState): EventRecord {
    return {
      event_id: state.info.event_id,
      sport_id: state.info.sport_id,
      event_date: state.info.event_date,
      info: JSON.stringify(state.info),
      change_id: state.version,
    };
  }

  /** Rebuilds the Board from the store: on start, and after a refused commit. */
  private loadBoard(): void {
    this.lastMarket = undefined;
    this.lastMarketEvent = undefined;
    const loaded = this.store.load();
    loadBoard(this.board, loaded);
    this.lastCommitMs = Math.max(this.lastCommitMs, loaded.headCommittedMs);
    this.nextMarketId = loaded.markets.reduce((max, m) => Math.max(max, m.id + 1), 1);
    this.nextPriceId = loaded.latestPrices.reduce((max, r) => Math.max(max, (r.price_id ?? 0) + 1), 1);
  }
}

/** Markets with at most this many participants are searched by comparison, larger ones by key. */
const SCAN_PARTICIPANTS = 8;

/** The rows of one batch, collected before the store transaction. */
class PendingCommit {
  readonly changes: ChangeRecord[] = [];
  readonly markets: MarketRecord[] = [];
  readonly touchedEvents = new Set<string>();
  private lastEventId: string | undefined;

  constructor(
    public head: number,
    readonly committedMs: number,
  ) {}

  nextId(): number {
    this.head += 1;
    return this.head;
  }

  /** Takes a whole record, built once by the caller, every kind with the same field order. */
  add(record: ChangeRecord): void {
    this.changes.push(record);
    if (record.event_id !== this.lastEventId) {
      this.touchedEvents.add(record.event_id);
      this.lastEventId = record.event_id;
    }
  }
}
