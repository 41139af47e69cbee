import type { FuturesBoards } from '../board/futures.ts';
import type { Change, ChangeRecord, FuturesPriceFact } from '../changelog/change.ts';
import type { FuturesHeader, FuturesSettlement } from '../domain/futures.ts';
import { priceDelta } from '../domain/odds.ts';
import type { FuturesBoardUpsert, FuturesPriceUpdate, FuturesSettle } from './updates.ts';

/** A futures update the ledger refuses; the whole batch is refused with it. */
export class FuturesUpdateError extends Error {}

/** One planned futures row and the change that applies it. */
export interface PlannedFutures {
  record: ChangeRecord;
  change: Change;
}

const ISO = /^\d{4}-\d{2}-\d{2}T/;

/**
 * Plans the futures rows of one batch over the committed boards without touching them: what the
 * batch opens, prices or settles is kept here so later updates of the same batch see it. Prices
 * that repeat the current one are dropped; prices on a decided board, or on a participant the
 * board does not list, are refused.
 */
export class FuturesPlan {
  private readonly headers = new Map<string, FuturesHeader>();
  private readonly settled = new Map<string, FuturesSettlement>();
  private readonly prices = new Map<string, number>();

  constructor(private readonly boards: FuturesBoards) {}

  private header(eventId: string): FuturesHeader | undefined {
    return this.headers.get(eventId) ?? this.boards.get(eventId)?.header;
  }

  private state(eventId: string): FuturesSettlement['state'] | undefined {
    const planned = this.settled.get(eventId)?.state ?? this.boards.get(eventId)?.settlement.state;
    // A board this batch opens is open until the batch settles it.
    return planned ?? (this.headers.has(eventId) ? 'open' : undefined);
  }

  /** `nextId` is called only when a row results, so an unchanged board or price uses no id. */
  board(u: FuturesBoardUpsert, nextId: () => number, at: string, committedMs: number): PlannedFutures | undefined {
    const h = u.board;
    checkHeader(h);
    const current = this.header(h.event_id);
    if (current && this.state(h.event_id) !== 'open') {
      throw new FuturesUpdateError(`futures board ${h.event_id} is decided; its header no longer changes`);
    }
    if (current && JSON.stringify(current) === JSON.stringify(h)) return undefined;
    if (current && current.sport_id !== h.sport_id) {
      throw new FuturesUpdateError(`futures board ${h.event_id} cannot move to another sport`);
    }
    this.headers.set(h.event_id, h);
    const id = nextId();
    return {
      record: row(id, 'futures_board', h.event_id, h.sport_id, at, committedMs, JSON.stringify(h)),
      change: { kind: 'futures_board', id, header: h, at },
    };
  }

  price(u: FuturesPriceUpdate, nextId: () => number, at: string, committedMs: number): PlannedFutures | undefined {
    const h = this.header(u.event_id);
    if (!h) throw new FuturesUpdateError(`futures price names an unknown board: ${u.event_id}`);
    if (this.state(u.event_id) !== 'open') throw new FuturesUpdateError(`futures board ${u.event_id} is decided`);
    const market = h.markets.find((m) => m.market_id === u.market_id);
    if (!market?.participants.some((p) => p.id === u.participant_id)) {
      throw new FuturesUpdateError(
        `futures board ${u.event_id} lists no participant ${u.participant_id} in market ${u.market_id}`,
      );
    }
    if (!Number.isInteger(u.price) || Math.abs(u.price) < 100) {
      throw new FuturesUpdateError(`futures price must be integer American odds, got ${u.price}`);
    }
    const key = `${u.event_id}|${u.market_id}|${u.participant_id}|${u.affiliate_id}`;
    const previous =
      this.prices.get(key) ??
      this.boards
        .get(u.event_id)
        ?.markets.get(u.market_id)
        ?.participants.get(u.participant_id)
        ?.prices.get(u.affiliate_id)?.price;
    if (previous === u.price) return undefined;
    this.prices.set(key, u.price);
    const id = nextId();
    const fact: FuturesPriceFact = {
      id,
      event_id: u.event_id,
      sport_id: h.sport_id,
      market_id: u.market_id,
      participant_id: u.participant_id,
      affiliate_id: u.affiliate_id,
      price: u.price,
      previous_price: previous ?? '',
      price_delta: priceDelta(previous, u.price),
      updated_at: at,
    };
    const record = row(id, 'futures_price', u.event_id, h.sport_id, at, committedMs, JSON.stringify(fact));
    record.market_id = u.market_id;
    record.affiliate_id = u.affiliate_id;
    return { record, change: { kind: 'futures_price', id, fact } };
  }

  settle(u: FuturesSettle, id: number, at: string, committedMs: number): PlannedFutures {
    const h = this.header(u.event_id);
    if (!h) throw new FuturesUpdateError(`futures settlement names an unknown board: ${u.event_id}`);
    if (this.state(u.event_id) !== 'open')
      throw new FuturesUpdateError(`futures board ${u.event_id} is already decided`);
    if (u.state === 'settled') {
      const listed = h.markets.some((m) => m.participants.some((p) => p.id === u.winner_participant_id));
      if (!listed)
        throw new FuturesUpdateError(`futures board ${u.event_id} lists no winner ${u.winner_participant_id}`);
    } else if (u.winner_participant_id !== null) {
      throw new FuturesUpdateError(`a void futures board has no winner (${u.event_id})`);
    }
    const settlement: FuturesSettlement = {
      state: u.state,
      winner_participant_id: u.winner_participant_id,
      settled_at: at,
    };
    this.settled.set(u.event_id, settlement);
    return {
      record: row(id, 'futures_settlement', u.event_id, h.sport_id, at, committedMs, JSON.stringify(settlement)),
      change: { kind: 'futures_settlement', id, event_id: u.event_id, settlement },
    };
  }
}

function checkHeader(h: FuturesHeader): void {
  if (h.event_id === '' || !Number.isInteger(h.sport_id))
    throw new FuturesUpdateError('futures board needs an event_id and a sport_id');
  if (!ISO.test(h.starts_at) || !ISO.test(h.ends_at)) {
    throw new FuturesUpdateError(`futures board ${h.event_id}: starts_at and ends_at must be ISO 8601`);
  }
  if (h.markets.length === 0) throw new FuturesUpdateError(`futures board ${h.event_id} has no market`);
  for (const m of h.markets) {
    const ids = new Set(m.participants.map((p) => p.id));
    if (m.participants.length === 0 || ids.size !== m.participants.length) {
      throw new FuturesUpdateError(`futures board ${h.event_id}: market ${m.market_id} needs distinct participants`);
    }
  }
}

function row(
  id: number,
  kind: ChangeRecord['kind'],
  eventId: string,
  sportId: number,
  at: string,
  committedMs: number,
  payload: string,
): ChangeRecord {
  return {
    id,
    kind,
    event_id: eventId,
    sport_id: sportId,
    at,
    committed_ms: committedMs,
    price_id: null,
    affiliate_id: null,
    market_id: null,
    payload,
    detail: null,
  };
}
