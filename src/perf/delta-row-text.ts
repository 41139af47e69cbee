import { Type } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import { PriceDetailSchema } from '../changelog/price-detail-schema.ts';
import type { LineState, MarketState, ParticipantState } from '../domain/event-state.ts';
import type { ChangeType } from '../domain/types.ts';
import { DeltaRowSchema } from '../domain/delta-row-schema.ts';
import { integer, number } from '../domain/json-text.ts';
import { pick } from './switch.ts';

/**
 * The price rows the ledger writes: each row's payload (the spec's Delta row, in its field order)
 * and its detail (PriceDetail). The trick, `DeltaRowWriter`, writes them by hand from parts kept
 * per event, market and line; its plain twin, `SchemaRowWriter`, gives the same arguments to the
 * compiled serialisers of DeltaRowSchema and PriceDetailSchema. Same bytes (test/unit/serialise.test.ts
 * and test/unit/schema-twins.test.ts).
 */
export interface RowWriter {
  /**
   * A price's Delta row; `marketName` the name the catalog gives the market as the row is written.
   * Positional arguments: one call per update, no object to carry them.
   */
  write(
    id: number,
    event: { event_id: string; sport_id: number },
    affiliateId: number,
    market: MarketState,
    marketName: string,
    participant: ParticipantState,
    line: LineState,
    price: number,
    previousPrice: number | undefined,
    changeType: ChangeType,
    isMainLine: boolean,
    closedAt: string,
    at: string,
  ): string;
  /** A price row's detail (PriceDetail). */
  detail(
    priceId: number,
    market: MarketState,
    line: LineState,
    priceDelta: number,
    liquidityUsd: number | undefined,
    sourceId: string | undefined,
    movedFrom: string | undefined,
    quoteUnchanged: boolean,
  ): string;
}

const BRACE = 0x7b;
const COMMA = 0x2c;

/**
 * `json` (a JSON object, or a list of members after a comma), flat in memory. A string built by
 * concatenation is a tree of its pieces (a V8 cons string), which better-sqlite3 binds about 1 µs
 * slower than a flat one (measured on these rows) and which keeps every piece alive; reading a
 * character of it makes V8 flatten it in place, in about 0.2 µs, and the pieces become garbage. The
 * character is tested so that the read is not optimised away.
 */
function flat(json: string, opening = BRACE): string {
  if (json.charCodeAt(0) !== opening) throw new Error(`not JSON as expected here: ${json.slice(0, 20)}`);
  return json;
}

/**
 * A compiled serialiser of some Delta row fields, as the members it writes in the row (`,"k":v...`),
 * flat: every such fragment is kept (per event, market or line) and reused, and unflattened it would
 * hold a slice of the whole serialiser output it was cut from, three to four times its own size
 * (about 6 MB over a board's 40,000 lines in a heap snapshot of a simulated month).
 */
function deltaMembers(keys: (keyof typeof DeltaRowSchema.properties)[]): (value: object) => string {
  const serialise = fastJson(Type.Pick(DeltaRowSchema, keys));
  return (value) => flat(`,${serialise(value).slice(1, -1)}`, COMMA);
}

const eventMembers = deltaMembers(['event_id', 'sport_id']);
const marketMembers = deltaMembers(['market_id', 'market_name']);
const lineMembers = deltaMembers(['participant_id', 'participant_type', 'participant_name', 'line']);

/**
 * Writes a price's Delta row exactly as serialiseDeltaRow does, from parts that mostly repeat from one
 * row to the next: the event's, the market's and the line's fields are serialised once and reused,
 * so a row costs a few concatenations instead of a walk over 16 fields (and no row object).
 */
export class DeltaRowWriter implements RowWriter {
  private eventId: string | undefined;
  private sportId: number | undefined;
  private eventJson = '';
  /** Per market id, its members as last written, and the name they hold. */
  private readonly marketJson = new Map<number, { name: string; json: string }>();
  /** Keyed by the board's line objects: a line never changes participant or value. */
  private readonly lineJson = new WeakMap<LineState, string>();
  /** A line's detail members after the price id; a line never changes market instance. */
  private readonly lineDetailJson = new WeakMap<LineState, string>();
  private at: string | undefined;
  private atJson = '';
  /** A Delta row's pieces, the fixed ones in place; `write` fills the others for each row. */
  private readonly rowParts: string[] = [
    '{"id":',
    '',
    '',
    ',"affiliate_id":',
    '',
    '',
    '',
    ',"price":"',
    '',
    '","previous_price":"',
    '',
    '","change_type":"',
    '',
    '',
    '',
    ',"updated_at":',
    '',
    '}',
  ];
  /** A detail's pieces, as `rowParts`; an optional member absent is an empty piece. */
  private readonly detailParts: string[] = ['{"price_id":', '', '', ',"price_delta":', '', '', '', '', ''];

  write(
    id: number,
    event: { event_id: string; sport_id: number },
    affiliateId: number,
    market: MarketState,
    marketName: string,
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
    // A catalog record may have renamed the market since its members were written.
    if (marketJson === undefined || marketJson.name !== marketName) {
      marketJson = {
        name: marketName,
        json: marketMembers({ market_id: market.market_id, market_name: marketName }),
      };
      this.marketJson.set(market.market_id, marketJson);
    }
    let lineJson = this.lineJson.get(line);
    if (lineJson === undefined) {
      lineJson = lineMembers({
        participant_id: participant.id,
        participant_type: participant.type,
        participant_name: participant.name,
        line: line.value,
      });
      this.lineJson.set(line, lineJson);
    }
    if (at !== this.at) {
      this.at = at;
      this.atJson = JSON.stringify(at);
    }
    // Joined, not concatenated: one flat string made at once, where some twenty concatenations made
    // as many intermediate strings and then a flat copy (the ledger's largest allocation a price).
    // The pieces go in slots of one array kept for every row, so the join makes the row alone.
    // Prices are finite numbers, whose String() needs no escaping.
    const p = this.rowParts;
    p[1] = integer(id);
    p[2] = this.eventJson;
    p[4] = integer(affiliateId);
    p[5] = marketJson.json;
    p[6] = lineJson;
    p[8] = String(price);
    p[10] = previousPrice === undefined ? '' : String(previousPrice);
    p[12] = changeType;
    p[13] = isMainLine ? '","is_main_line":true,"closed_at":' : '","is_main_line":false,"closed_at":';
    p[14] = closedAt === '' ? '""' : closedAt === at ? this.atJson : JSON.stringify(closedAt);
    p[16] = this.atJson;
    return p.join('');
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
      lineJson = flat(
        `,"period_id":${integer(market.period_id)},"market_instance_id":${integer(market.id)}` +
          `,"line_id":${JSON.stringify(line.id)}`,
        COMMA,
      );
      this.lineDetailJson.set(line, lineJson);
    }
    // Joined as the row is: one flat string, no intermediate ones and no flattening copy.
    const p = this.detailParts;
    p[1] = integer(priceId);
    p[2] = lineJson;
    p[4] = number(priceDelta);
    p[5] = liquidityUsd === undefined ? '' : `,"liquidity_usd":${number(liquidityUsd)}`;
    p[6] = sourceId === undefined ? '' : `,"source_id":${JSON.stringify(sourceId)}`;
    p[7] = movedFrom === undefined ? '' : `,"moved_from":${JSON.stringify(movedFrom)}`;
    p[8] = quoteUnchanged ? ',"quote_unchanged":true}' : '}';
    return p.join('');
  }
}

const serialiseDeltaRow = fastJson(DeltaRowSchema);
const serialisePriceDetail = fastJson(PriceDetailSchema);

/** The plain twin: each row and detail built as an object and given to its schema's serialiser. */
export class SchemaRowWriter implements RowWriter {
  write(
    id: number,
    event: { event_id: string; sport_id: number },
    affiliateId: number,
    market: MarketState,
    marketName: string,
    participant: ParticipantState,
    line: LineState,
    price: number,
    previousPrice: number | undefined,
    changeType: ChangeType,
    isMainLine: boolean,
    closedAt: string,
    at: string,
  ): string {
    return serialiseDeltaRow({
      id,
      event_id: event.event_id,
      sport_id: event.sport_id,
      affiliate_id: affiliateId,
      market_id: market.market_id,
      market_name: marketName,
      participant_id: participant.id,
      participant_type: participant.type,
      participant_name: participant.name,
      line: line.value,
      price: String(price),
      previous_price: previousPrice === undefined ? '' : String(previousPrice),
      change_type: changeType,
      is_main_line: isMainLine,
      closed_at: closedAt,
      updated_at: at,
    });
  }

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
    return serialisePriceDetail({
      price_id: priceId,
      period_id: market.period_id,
      market_instance_id: market.id,
      line_id: line.id,
      price_delta: priceDelta,
      ...(liquidityUsd === undefined ? {} : { liquidity_usd: liquidityUsd }),
      ...(sourceId === undefined ? {} : { source_id: sourceId }),
      ...(movedFrom === undefined ? {} : { moved_from: movedFrom }),
      ...(quoteUnchanged ? { quote_unchanged: true as const } : {}),
    });
  }
}

/** The ledger's row writer: the trick, or its plain twin when the switch says so. */
export const newRowWriter: () => RowWriter = pick(
  () => new DeltaRowWriter(),
  () => new SchemaRowWriter(),
);
