import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import type { LineState, MarketState, ParticipantState } from '../board/board.ts';
import { marketName } from '../catalog/markets.ts';
import type { ChangeType } from '../domain/types.ts';
import { DeltaRowSchema } from '../domain/delta-row-schema.ts';

/**
 * Serialisers of the price rows the ledger writes: compiled from schemas once, about twice as fast
 * as JSON.stringify, and with a fixed field order (the Delta row's order in the specification).
 * The row's detail (PriceDetail) is written by hand in the order and spelling the compiled
 * serialiser of its schema had (test/unit/serialise.test.ts holds that serialiser as the oracle).
 */

/** A compiled serialiser of some Delta row fields, as the members it writes in the row (`,"k":v...`). */
function deltaMembers(keys: (keyof typeof DeltaRowSchema.properties)[]): (value: object) => string {
  const serialise = fastJson(Type.Pick(DeltaRowSchema, keys));
  return (value) => `,${serialise(value).slice(1, -1)}`;
}

const eventMembers = deltaMembers(['event_id', 'sport_id']);
const marketMembers = deltaMembers(['market_id', 'market_name']);
const lineMembers = deltaMembers(['participant_id', 'participant_type', 'participant_name', 'line']);

/** fast-json-stringify's integer: the same text for every value. */
function integer(n: number): string {
  if (Number.isInteger(n)) return `${n}`;
  const t = Math.trunc(n);
  if (!Number.isFinite(t)) throw new Error(`The value "${n}" cannot be converted to an integer.`);
  return `${t}`;
}

/**
 * The JSON object `json`, flat in memory. A string built by concatenation is a tree of its pieces
 * (a V8 cons string), which better-sqlite3 binds about 1 µs slower than a flat one (measured on
 * these rows); reading a character of it makes V8 flatten it in place, in about 0.2 µs. The
 * character is tested so that the read is not optimised away.
 */
function flat(json: string): string {
  if (json.charCodeAt(0) !== 0x7b) throw new Error(`not a JSON object: ${json.slice(0, 20)}`);
  return json;
}

/**
 * A row fragment (`,"k":v...`) that is kept as long as its line lives, flat in memory. Built by
 * concatenation, it is a tree of pieces, one of them a slice that holds the whole string it was
 * cut from: three to four times the fragment's own size, over the board's 40,000 lines about 6 MB
 * of the heap (a heap snapshot of a simulated month). Reading a character makes V8 copy it into one
 * flat string in place, and the pieces become garbage.
 */
function keptMembers(json: string): string {
  if (json.charCodeAt(0) !== 0x2c) throw new Error(`not a list of members: ${json.slice(0, 20)}`);
  return json;
}

/** fast-json-stringify's number: infinities are null, NaN is refused. */
function number(n: number): string {
  if (Number.isNaN(n)) throw new Error(`The value "${n}" cannot be converted to a number.`);
  return n === Infinity || n === -Infinity ? 'null' : `${n}`;
}

/**
 * Writes a price's Delta row exactly as serialiseDeltaRow does, from parts that mostly repeat from one
 * row to the next: the event's, the market's and the line's fields are serialised once and reused,
 * so a row costs a few concatenations instead of a walk over 16 fields (and no row object).
 */
export class DeltaRowWriter {
  private eventId: string | undefined;
  private sportId: number | undefined;
  private eventJson = '';
  private readonly marketJson = new Map<number, string>();
  /** Keyed by the board's line objects: a line never changes participant or value. */
  private readonly lineJson = new WeakMap<LineState, string>();
  /** A line's detail members after the price id; a line never changes market instance. */
  private readonly lineDetailJson = new WeakMap<LineState, string>();
  private at: string | undefined;
  private atJson = '';

  write(
    id: number,
    event: { event_id: string; sport_id: number },
    affiliateId: number,
    market: MarketState,
    participant: ParticipantState,
    line: LineState,
    price: number,
    previousPrice: number | undefined,
    changeType: ChangeType,
    isMainLine: boolean,
    closedAt: string,
    at: string,
  ): string {
    if (event.event_id !== this.eventId || event.sport_id !== this.sportId) {
      this.eventId = event.event_id;
      this.sportId = event.sport_id;
      this.eventJson = eventMembers(event);
    }
    let marketJson = this.marketJson.get(market.market_id);
    if (marketJson === undefined) {
      marketJson = marketMembers({ market_id: market.market_id, market_name: marketName(market.market_id) });
      this.marketJson.set(market.market_id, marketJson);
    }
    let lineJson = this.lineJson.get(line);
    if (lineJson === undefined) {
      lineJson = keptMembers(
        lineMembers({
          participant_id: participant.id,
          participant_type: participant.type,
          participant_name: participant.name,
          line: line.value,
        }),
      );
      this.lineJson.set(line, lineJson);
    }
    if (at !== this.at) {
      this.at = at;
      this.atJson = JSON.stringify(at);
    }
    // Prices are finite numbers, whose String() needs no escaping.
    return flat(
      `{"id":${integer(id)}${this.eventJson},"affiliate_id":${integer(affiliateId)}${marketJson}${lineJson}` +
        `,"price":"${price}","previous_price":"${previousPrice === undefined ? '' : previousPrice}"` +
        `,"change_type":"${changeType}","is_main_line":${isMainLine ? 'true' : 'false'}` +
        `,"closed_at":${closedAt === '' ? '""' : closedAt === at ? this.atJson : JSON.stringify(closedAt)}` +
        `,"updated_at":${this.atJson}}`,
    );
  }

  /**
   * A price row's detail (PriceDetail) as JSON. Positional arguments, as `write`'s: one call per
   * update, and the object it replaces was a measurable share of the ledger's garbage.
   */
  detail(
    priceId: number,
    market: MarketState,
    line: LineState,
    priceDelta: number,
    liquidityUsd: number | undefined,
    sourceId: string | undefined,
    movedFrom: string | undefined,
    quoteUnchanged: boolean,
  ): string {
    let lineJson = this.lineDetailJson.get(line);
    if (lineJson === undefined) {
      lineJson = keptMembers(
        `,"period_id":${integer(market.period_id)},"market_instance_id":${integer(market.id)}` +
          `,"line_id":${JSON.stringify(line.id)}`,
      );
      this.lineDetailJson.set(line, lineJson);
    }
    let json = `{"price_id":${integer(priceId)}${lineJson},"price_delta":${number(priceDelta)}`;
    if (liquidityUsd !== undefined) json += `,"liquidity_usd":${number(liquidityUsd)}`;
    if (sourceId !== undefined) json += `,"source_id":${JSON.stringify(sourceId)}`;
    if (movedFrom !== undefined) json += `,"moved_from":${JSON.stringify(movedFrom)}`;
    if (quoteUnchanged) json += ',"quote_unchanged":true';
    return flat(`${json}}`);
  }
}
