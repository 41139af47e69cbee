import type { EventState, LineState, MarketState, ParticipantState, PriceState } from '../domain/event-state.ts';
import { integer, number } from '../domain/json-text.ts';
import type { EventInfo, Market } from '../domain/types.ts';
import { objectMemo } from './fresh-cache.ts';

/**
 * An event as a filter shows it, written as JSON straight from the board: the text that the
 * schema's serialiser gives for the view's objects (projection/event-json.ts, the plain twin), byte
 * for byte, without those objects. A distinct filter builds every event it asks for anew, and those
 * objects (a Price per price, a Record per line) were most of the young garbage a burst of such
 * requests made, and the collector's pauses most of the tail of the requests beside them.
 */

export interface EventJson {
  json: string;
  /** Prices written: one market price at one sportsbook each (the odds points of metering). */
  priceCount: number;
  marketCount: number;
  /** Whether live_game_state was written. */
  liveState: boolean;
}

/**
 * Where a market's name comes from: the current catalog (catalog/catalog.ts), which the caller
 * hands in; the kept views that hold names are made again when it changes (http/snapshot-cache.ts).
 */
export interface MarketNames {
  marketName(marketId: number): string;
}

/** What a filter `F` shows: the projection's rules, passed in (perf/ may not import projection/). */
export interface Shows<F> {
  market(m: MarketState, f: F): boolean;
  participant(part: ParticipantState, f: F): boolean;
  price(p: PriceState, f: F): boolean;
  includeDelta(f: F): boolean;
  liveGameState(f: F): boolean;
}

/** The schema's serialiser of an event (EventSchema), which writes the fields around the markets. */
export type SerializeEvent = (event: EventInfo & { markets: Market[] }) => string;

/** The event's JSON around its markets, which no filter changes but for live_game_state. */
export interface InfoJson {
  /** Up to and including the `[` of `"markets":[`. */
  head: string;
  /** From the `]` that closes the markets, without live_game_state and with it. */
  tail: string;
  tailLive: string | undefined;
}

const MARKETS = '"markets":[]';

/** Whether `key` is an array index, which an object's keys list first, in ascending order. */
function isIndex(key: number): boolean {
  return Number.isInteger(key) && key >= 0 && key < 4294967295;
}

/** A Record's key order: its index keys ascending, then the others as they were added. */
function keyOrder(a: PriceState, b: PriceState): number {
  const ia = isIndex(a.affiliate_id);
  const ib = isIndex(b.affiliate_id);
  if (ia && ib) return a.affiliate_id - b.affiliate_id;
  return ia ? -1 : ib ? 1 : 0;
}

function priceJson(p: PriceState, includeDelta: boolean): string {
  let json = `{"id":"${p.id}","price":${number(p.price)},"is_main_line":${p.is_main_line ? 'true' : 'false'}`;
  json += `,"updated_at":${JSON.stringify(p.updated_at)}`;
  if (includeDelta && p.price_delta !== undefined) json += `,"price_delta":${number(p.price_delta)}`;
  if (p.liquidity_usd !== undefined) json += `,"liquidity_usd":${number(p.liquidity_usd)}`;
  if (p.source_id !== undefined) json += `,"source_id":${JSON.stringify(p.source_id)}`;
  return `${json}}`;
}

/** `"19":{...}`: a price as an entry of its line's `prices` object. */
export function priceEntry(p: PriceState, includeDelta: boolean): string {
  return `"${p.affiliate_id}":${priceJson(p, includeDelta)}`;
}

/** A line up to and including the `{` that opens its prices; `}}` closes both. */
export function lineOpen(line: LineState): string {
  return `{"id":${JSON.stringify(line.id)},"value":${JSON.stringify(line.value)},"prices":{`;
}

/** A participant up to and including the `[` that opens its lines; `]}` closes both. */
export function participantOpen(part: ParticipantState): string {
  return `{"id":${integer(part.id)},"type":${JSON.stringify(part.type)},"name":${JSON.stringify(part.name)},"lines":[`;
}

/** A market up to and including the `[` that opens its participants; `]}` closes both. */
export function marketOpen(m: MarketState, names: MarketNames): string {
  const name = JSON.stringify(names.marketName(m.market_id));
  return (
    `{"id":${integer(m.id)},"market_id":${integer(m.market_id)},"period_id":${integer(m.period_id)}` +
    `,"name":${name},"market_description":${name},"participants":[`
  );
}

/** The hand-written event JSON for filters `F`, and the pieces it is made of (projection/book-cut.ts cuts them). */
export interface EventText<F> {
  eventJson(state: EventState, f: F, names: MarketNames): EventJson;
  infoParts(info: EventInfo): InfoJson;
  /**
   * The prices of `line` the filter shows, in the order a Record keys them (index keys ascending):
   * in one array reused from line to line, valid until the next call.
   */
  shownPrices(line: LineState, f: F): PriceState[];
}

/** The hand-written event JSON for filters `F`, with the projection's rules and the schema's serialiser. */
export function eventTextWriter<F>(shows: Shows<F>, serializeEvent: SerializeEvent): EventText<F> {
  /** The prices a line shows, reused from line to line: one array for the whole process. */
  const shown: PriceState[] = [];

  /** Made once per info object, which the ledger replaces whenever the event's own fields change. */
  const infoParts = objectMemo((info: EventInfo): InfoJson => {
    const { live_game_state, ...rest } = info;
    const text = serializeEvent({ ...rest, markets: [] });
    // The schema puts markets after every field that could hold this text and before the rest.
    const close = text.indexOf(MARKETS) + MARKETS.length - 1;
    return {
      head: text.slice(0, close),
      tail: text.slice(close),
      tailLive: live_game_state ? serializeEvent({ ...rest, markets: [], live_game_state }).slice(close) : undefined,
    };
  });

  function shownPrices(line: LineState, f: F): PriceState[] {
    shown.length = 0;
    let ordered = true;
    for (const p of line.prices.values()) {
      if (!shows.price(p, f)) continue;
      if (shown.length > 0 && keyOrder(shown[shown.length - 1]!, p) > 0) ordered = false;
      shown.push(p);
    }
    if (!ordered) shown.sort(keyOrder);
    return shown;
  }

  /** The entries of the line's `prices` object under the filter's rules, or '' for none. */
  function priceEntries(line: LineState, f: F, includeDelta: boolean): string {
    let json = '';
    for (const p of shownPrices(line, f)) json += `${json === '' ? '' : ','}${priceEntry(p, includeDelta)}`;
    return json;
  }

  function eventJson(state: EventState, f: F, names: MarketNames): EventJson {
    const includeDelta = shows.includeDelta(f);
    let priceCount = 0;
    let marketCount = 0;
    let markets = '';
    for (const m of state.markets.values()) {
      if (!shows.market(m, f)) continue;
      let participants = '';
      for (const part of m.participants.values()) {
        if (!shows.participant(part, f)) continue;
        let lines = '';
        for (const line of part.lines.values()) {
          const prices = priceEntries(line, f, includeDelta);
          if (prices === '') continue;
          priceCount += shown.length;
          lines += `${lines === '' ? '' : ','}${lineOpen(line)}${prices}}}`;
        }
        if (lines === '') continue;
        participants += `${participants === '' ? '' : ','}${participantOpen(part)}${lines}]}`;
      }
      if (participants === '') continue;
      markets += `${markets === '' ? '' : ','}${marketOpen(m, names)}${participants}]}`;
      marketCount++;
    }
    const info = infoParts(state.info);
    const live = shows.liveGameState(f) && info.tailLive !== undefined;
    return {
      json: info.head + markets + (live ? info.tailLive! : info.tail),
      priceCount,
      marketCount,
      liveState: live,
    };
  }

  return { eventJson, infoParts, shownPrices };
}
