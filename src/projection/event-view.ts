import type { Event, Line, Market, Participant, ParticipantType, Price } from '../domain/types.ts';
import type { EventState, MarketState, ParticipantState, PriceState } from '../board/event-state.ts';
import type { MarketNames } from '../perf/event-text.ts';

/** What a snapshot request asks of each event, already parsed and checked. */
export interface EventFilter {
  /** Market ids to return, with the automatic live variants already added. */
  marketIds: ReadonlySet<number>;
  /** null: every book. */
  affiliateIds: ReadonlySet<number> | null;
  /** null: every period. */
  periodIds: ReadonlySet<number> | null;
  mainLine: boolean;
  participantIds: ReadonlySet<number> | null;
  participantType: ParticipantType | null;
  hideClosed: boolean;
  includePriceDelta: boolean;
  /** The key may see live_game_state (Ultra and above). */
  liveGameState: boolean;
}

/** A canonical string for a filter: equal filters give equal keys, so views can be cached by it. */
export function filterKey(f: EventFilter): string {
  const ids = (s: ReadonlySet<number> | null) => (s ? [...s].sort((a, b) => a - b).join(',') : '*');
  return [
    ids(f.marketIds),
    ids(f.affiliateIds),
    ids(f.periodIds),
    f.mainLine ? 1 : 0,
    ids(f.participantIds),
    f.participantType ?? '*',
    f.hideClosed ? 1 : 0,
    f.includePriceDelta ? 1 : 0,
    f.liveGameState ? 1 : 0,
  ].join('|');
}

/** The key of a filter's every-book variant, from its key (`filterKey`): the book list, its second field, as `*`. */
export function everyBookKey(key: string): string {
  const from = key.indexOf('|') + 1;
  return `${key.slice(0, from)}*${key.slice(key.indexOf('|', from))}`;
}

export interface EventView {
  event: Event;
  /** Prices returned: one market price at one sportsbook each (the odds points of metering). */
  priceCount: number;
}

/** 1 events point + 1 scores point + 1 odds point per price, +1 scores point with live_game_state. */
export function eventPoints(priceCount: number, liveState: boolean): number {
  return 2 + priceCount + (liveState ? 1 : 0);
}

function priceView(p: PriceState, includeDelta: boolean): Price {
  const out: Price = {
    id: String(p.id),
    price: p.price,
    is_main_line: p.is_main_line,
    updated_at: p.updated_at,
  };
  if (includeDelta) out.price_delta = p.price_delta;
  if (p.liquidity_usd !== undefined) out.liquidity_usd = p.liquidity_usd;
  if (p.source_id !== undefined) out.source_id = p.source_id;
  return out;
}

/** Gives the Price a view shows for a board price, or undefined to leave it out. */
export type PriceResolver = (p: PriceState) => Price | undefined;

/** Whether the filter shows a market: its market id and period. */
export function marketShown(m: MarketState, f: EventFilter): boolean {
  return f.marketIds.has(m.market_id) && (!f.periodIds || f.periodIds.has(m.period_id));
}

/** Whether the filter shows a participant: its type and id. */
export function participantShown(part: ParticipantState, f: EventFilter): boolean {
  return (
    (!f.participantType || part.type === f.participantType) && (!f.participantIds || f.participantIds.has(part.id))
  );
}

/** Whether the filter shows a current price: the book, main-line and closure rules. */
export function priceShown(p: PriceState, f: EventFilter): boolean {
  return (
    (!f.affiliateIds || f.affiliateIds.has(p.affiliate_id)) &&
    (!f.mainLine || p.is_main_line) &&
    (!f.hideClosed || p.closed_at === '')
  );
}

/** Current prices under the filter's book, main-line and closure rules. */
export function currentPrices(f: EventFilter): PriceResolver {
  return (p) => (priceShown(p, f) ? priceView(p, f.includePriceDelta) : undefined);
}

/**
 * The event as the filter asks for it: markets, participants, lines and prices narrowed, each
 * market named as the current catalog (`names`) names it. `resolve` picks each price (current ones
 * by default; openers and closing pass recorded ones).
 */
export function viewEvent(
  state: EventState,
  f: EventFilter,
  names: MarketNames,
  resolve = currentPrices(f),
): EventView {
  let priceCount = 0;
  const markets: Market[] = [];
  for (const m of state.markets.values()) {
    if (!marketShown(m, f)) continue;
    const participants: Participant[] = [];
    for (const part of m.participants.values()) {
      if (!participantShown(part, f)) continue;
      const lines: Line[] = [];
      for (const line of part.lines.values()) {
        const prices: Record<string, Price> = {};
        let n = 0;
        for (const p of line.prices.values()) {
          const price = resolve(p);
          if (!price) continue;
          prices[String(p.affiliate_id)] = price;
          n++;
        }
        if (n === 0) continue;
        priceCount += n;
        lines.push({ id: line.id, value: line.value, prices });
      }
      if (lines.length > 0)
        participants.push({
          id: part.id,
          type: part.type,
          name: part.name,
          lines,
        });
    }
    if (participants.length > 0) {
      const name = names.marketName(m.market_id);
      markets.push({
        id: m.id,
        market_id: m.market_id,
        period_id: m.period_id,
        name,
        market_description: name,
        participants,
      });
    }
  }
  const { live_game_state, ...info } = state.info;
  const event: Event = { ...info, markets };
  if (f.liveGameState && live_game_state) event.live_game_state = live_game_state;
  return { event, priceCount };
}
