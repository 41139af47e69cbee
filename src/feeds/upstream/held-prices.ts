import type { Board } from '../../board/board.ts';
import { marketKey, participantKey } from '../../board/event-state.ts';
import type { Event } from '../../../packages/client/src/index.ts';
import type { ParticipantType } from '../../domain/types.ts';
import { type HeldPrice, priceRecords, type Timed } from './records.ts';

/**
 * The price a markets-delta row moves, found on the mirror's board: the row names its event, market,
 * participant, line and book but no period and no ids. Undefined when the mirror holds no such
 * price, or when more than one period has it (then the event is read whole).
 */
export function heldPrice(
  board: Board,
  row: {
    event_id: string;
    market_id: number;
    participant_type: string;
    participant_id: number;
    line: string;
    affiliate_id: number;
  },
): HeldPrice | undefined {
  const ev = board.events.get(row.event_id);
  if (!ev) return undefined;
  const pKey = participantKey(row.participant_type as ParticipantType, row.participant_id);
  let found: HeldPrice | undefined;
  for (const m of ev.markets.values()) {
    if (m.market_id !== row.market_id) continue;
    const line = m.participants.get(pKey)?.lines.get(row.line);
    const price = line?.prices.get(row.affiliate_id);
    if (!line || !price) continue;
    if (found) return undefined;
    found = { periodId: m.period_id, priceId: price.id, instanceId: m.id, lineId: line.id };
    if (price.liquidity_usd !== undefined) found.liquidityUsd = price.liquidity_usd;
    if (price.source_id !== undefined) found.sourceId = price.source_id;
  }
  return found;
}

/** Whether the mirror holds the price `t` sets in a state newer than `t`'s time. */
export function heldSince(board: Board, t: Timed): boolean {
  const u = t.update;
  if (u.kind !== 'price') return false;
  const m = board.events.get(u.event_id)?.markets.get(marketKey(u.market_id, u.period_id));
  const held = m?.participants.get(participantKey(u.participant_type, u.participant_id))?.lines.get(u.line);
  const p = held?.prices.get(u.affiliate_id);
  return p !== undefined && p.updated_at > t.at;
}

/**
 * Price records for the prices of an upstream event whose quote the mirror already holds as shown
 * (price, flag, closure; at that time or before) but whose liquidity or source id differ: the
 * markets delta carries neither, and the stream sends nothing for a change of them alone; the
 * event delta's events do (for the markets they show). An answer shows no `closed_at`: a price held
 * at the very time shown is that state, closed or not (a closing is a row of its own time); one
 * held from before is taken as shown, open.
 */
export function extrasOf(board: Board, e: Event): Timed[] {
  const ev = board.events.get(e.event_id);
  if (!ev) return [];
  const out: Timed[] = [];
  for (const t of priceRecords(e)) {
    const u = t.update;
    if (u.kind !== 'price') continue;
    const m = ev.markets.get(marketKey(u.market_id, u.period_id));
    const held = m?.participants.get(participantKey(u.participant_type, u.participant_id))?.lines.get(u.line);
    const p = held?.prices.get(u.affiliate_id);
    if (!p || p.price !== u.price || p.is_main_line !== u.is_main_line || p.updated_at > t.at) continue;
    if (Date.parse(p.updated_at) === Date.parse(t.at)) u.closed = p.closed_at !== '';
    else if ((p.closed_at !== '') !== (u.closed ?? false)) continue;
    if (p.liquidity_usd === u.liquidity_usd && p.source_id === u.source_id) continue;
    out.push(t);
  }
  return out;
}
