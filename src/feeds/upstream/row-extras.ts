import type { Event, OddsbaseClient } from '../../../packages/client/src/index.ts';
import type { Board } from '../../board/board.ts';
import { inGroups } from './groups.ts';
import type { Timed } from './records.ts';

/** A polled price record, by the event whose markets are read for it. */
export interface PolledRecord {
  eventId: string;
  t: Timed;
}

/** One state of a price as the upstream shows it: its quote's time and price, and its extras. */
interface ShownState {
  atMs: number;
  price: number;
  liquidityUsd: number | undefined;
  sourceId: string | undefined;
}

/**
 * Gives polled price records the liquidity and source id the upstream's rows hold, before they are
 * committed. A markets-delta row carries neither, so its record holds the mirror's previous ones
 * (`deltaRecord`): right for a book without them, stale for one with them wherever the row moved
 * them too. For each event, its records' markets are read for their books, one request per 12
 * market ids: the events route (each price's current state) and, when the event has started and a
 * record lies at or before its start, the closing route (each price's last state before it, which
 * the mirror's closing answer then serves). A record takes the extras of the shown state it is: the same price
 * id, price and time. One of neither (moved again since) keeps what it holds, and the poll that
 * reads the later row gives that one its extras.
 */
export async function fillExtras(
  client: OddsbaseClient,
  board: Board,
  records: readonly PolledRecord[],
  nowMs: number,
  signal: AbortSignal,
): Promise<void> {
  const byEvent = new Map<string, Timed[]>();
  for (const { eventId, t } of records) {
    if (t.update.kind !== 'price') continue;
    let list = byEvent.get(eventId);
    if (!list) byEvent.set(eventId, (list = []));
    list.push(t);
  }
  for (const [eventId, list] of byEvent) {
    // Before the start, a price's closing state is its current one: the events route shows it.
    const startMs = board.events.get(eventId)?.startMs ?? Number.NEGATIVE_INFINITY;
    const before = startMs <= nowMs && list.some((t) => Date.parse(t.at) <= startMs);
    const markets: number[] = [];
    const books = new Set<number>();
    for (const { update: u } of list) {
      if (u.kind !== 'price') continue;
      markets.push(u.market_id);
      books.add(u.affiliate_id);
    }
    const shown = new Map<number, ShownState[]>();
    for (const group of inGroups(markets)) {
      const q = { market_ids: group, affiliate_ids: [...books].sort((a, b) => a - b), include: ['all_periods'] };
      statesOf((await client.event(eventId, q, { signal })).data.events, shown);
      if (before) statesOf((await client.closing(eventId, q, { signal })).data.events, shown);
    }
    for (const { at, update: u } of list) {
      if (u.kind !== 'price' || u.price_id === undefined) continue;
      const atMs = Date.parse(at);
      const state = shown.get(u.price_id)?.find((s) => s.atMs === atMs && s.price === u.price);
      if (!state) continue;
      if (state.liquidityUsd === undefined) delete u.liquidity_usd;
      else u.liquidity_usd = state.liquidityUsd;
      if (state.sourceId === undefined) delete u.source_id;
      else u.source_id = state.sourceId;
    }
  }
}

/** Adds the states of every price `events` show, by price id. */
function statesOf(events: readonly Event[], into: Map<number, ShownState[]>): void {
  for (const e of events) {
    for (const m of e.markets) {
      for (const p of m.participants) {
        for (const line of p.lines) {
          for (const price of Object.values(line.prices)) {
            const id = Number(price.id);
            let list = into.get(id);
            if (!list) into.set(id, (list = []));
            list.push({
              atMs: Date.parse(price.updated_at),
              price: price.price,
              liquidityUsd: price.liquidity_usd,
              sourceId: price.source_id,
            });
          }
        }
      }
    }
  }
}
