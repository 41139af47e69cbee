import type { MarketPrice } from '../../../packages/client/src/index.ts';
import type { Board } from '../../board/board.ts';
import { participantKey } from '../../board/event-state.ts';
import type { ParticipantType } from '../../domain/types.ts';
import { deltaRecord, type HeldPrice, type Timed } from './records.ts';

/** The stream's participant type numbers (docs/spec-gaps.md, Dedicated markets stream). */
const PARTICIPANT_TYPES: Record<number, ParticipantType> = { 1: 'TYPE_TEAM', 2: 'TYPE_PLAYER', 3: 'TYPE_RESULT' };

/**
 * A stream frame's price change as a price record, through the same held-price path as a
 * markets-delta row (`deltaRecord`): the frame names no period and no line or market ids, but it
 * carries the price's id, which picks the held price even where several periods of one market
 * have the line. Undefined when the mirror does not hold that price (a new book, line or market):
 * the event is then read whole.
 */
export function frameRecord(board: Board, f: MarketPrice): Timed | undefined {
  const type = PARTICIPANT_TYPES[f.normalized_market_participant_type];
  if (!type) return undefined;
  const held = heldPriceById(board, f, type);
  if (!held) return undefined;
  return deltaRecord(
    {
      event_id: f.event_id,
      market_id: f.market_id,
      participant_id: f.normalized_market_participant_id,
      participant_type: type,
      participant_name: held.participantName,
      line: f.line,
      affiliate_id: f.affiliate_id,
      price: f.price,
      is_main_line: f.is_main_line,
      closed_at: f.closed_at,
      updated_at: f.updated_at,
      ...(f.liquidity_usd === undefined ? {} : { liquidity_usd: f.liquidity_usd }),
    },
    held,
  );
}

/** The held price a frame moves: its event, market, participant, line and book, and its id. */
function heldPriceById(
  board: Board,
  f: MarketPrice,
  type: ParticipantType,
): (HeldPrice & { participantName: string }) | undefined {
  const ev = board.events.get(f.event_id);
  if (!ev) return undefined;
  const pKey = participantKey(type, f.normalized_market_participant_id);
  for (const m of ev.markets.values()) {
    if (m.market_id !== f.market_id) continue;
    const participant = m.participants.get(pKey);
    const line = participant?.lines.get(f.line);
    const price = line?.prices.get(f.affiliate_id);
    if (!participant || !line || !price || price.id !== f.id) continue;
    const held: HeldPrice & { participantName: string } = {
      periodId: m.period_id,
      priceId: price.id,
      instanceId: m.id,
      lineId: line.id,
      participantName: participant.name,
    };
    if (price.liquidity_usd !== undefined) held.liquidityUsd = price.liquidity_usd;
    if (price.source_id !== undefined) held.sourceId = price.source_id;
    return held;
  }
  return undefined;
}
