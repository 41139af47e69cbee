import type { FuturesHeader, FuturesParticipant, FuturesPriceState, FuturesSettlement } from '../domain/futures.ts';
import type { CatalogRecord } from '../catalog/records.ts';
import type { SeasonStats } from '../domain/season-stats.ts';
import type { EventInfo } from '../domain/types.ts';
import { priceState } from '../perf/price-state.ts';
import type { SeasonTotalsRecord } from '../store/store.ts';
import type { Applied } from './apply.ts';
import type { Board } from './board.ts';
import type { KeptChange } from './delayed-views.ts';
import type { EventState, GameState, LineState, MarketState, ParticipantState, PriceState } from './event-state.ts';
import type { FuturesBoardState, FuturesMarketState } from './futures.ts';
import { SmallMap } from './small-map.ts';

/**
 * A board and the changes its delayed views keep, as two flat arrays: every number in one
 * Float64Array, every string once in a table (a number in the first array names it). Decoding walks
 * them in order and builds the objects as a load does (perf/price-state.ts's `priceState`, the
 * same Map and SmallMap kinds), so a decoded board is shaped as a loaded one. The views' changes
 * name the board's events, markets and prices by their place in the walk, so a decoded change
 * points at the decoded board's objects, as a replayed one points at the loaded board's.
 */
export interface EncodedBoard {
  numbers: Float64Array;
  strings: string[];
}

const NONE = -1;

class Out {
  private numbers = new Float64Array(1 << 16);
  private n = 0;
  readonly strings: string[] = [];
  private readonly index = new Map<string, number>();

  num(x: number): void {
    if (this.n === this.numbers.length) {
      const grown = new Float64Array(this.numbers.length * 2);
      grown.set(this.numbers);
      this.numbers = grown;
    }
    this.numbers[this.n++] = x;
  }

  str(s: string): void {
    let i = this.index.get(s);
    if (i === undefined) {
      i = this.strings.length;
      this.strings.push(s);
      this.index.set(s, i);
    }
    this.num(i);
  }

  optStr(s: string | undefined): void {
    if (s === undefined) this.num(NONE);
    else this.str(s);
  }

  optNum(x: number | undefined): void {
    this.num(x === undefined ? 0 : 1);
    if (x !== undefined) this.num(x);
  }

  done(): EncodedBoard {
    return { numbers: this.numbers.slice(0, this.n), strings: this.strings };
  }
}

class In {
  private i = 0;

  constructor(private readonly e: EncodedBoard) {}

  num(): number {
    if (this.i >= this.e.numbers.length) throw new Error('the snapshot ends early');
    return this.e.numbers[this.i++]!;
  }

  str(): string {
    const s = this.e.strings[this.num()];
    if (s === undefined) throw new Error('the snapshot names a string it does not hold');
    return s;
  }

  optStr(): string | undefined {
    const at = this.num();
    if (at === NONE) return undefined;
    const s = this.e.strings[at];
    if (s === undefined) throw new Error('the snapshot names a string it does not hold');
    return s;
  }

  optNum(): number | undefined {
    return this.num() === 1 ? this.num() : undefined;
  }

  end(): void {
    if (this.i !== this.e.numbers.length) throw new Error('the snapshot holds more than it describes');
  }
}

function writePrice(out: Out, p: PriceState): void {
  out.num(p.id);
  out.num(p.affiliate_id);
  out.num(p.price);
  out.num(p.is_main_line ? 1 : 0);
  out.str(p.updated_at);
  out.str(p.closed_at);
  out.num(p.price_delta);
  out.num(p.change_id);
  out.optNum(p.liquidity_usd);
  out.optStr(p.source_id);
  out.optStr(p.moved_from);
}

function readPrice(r: In): PriceState {
  const id = r.num();
  const affiliateId = r.num();
  const price = r.num();
  const main = r.num() === 1;
  const updatedAt = r.str();
  const closedAt = r.str();
  const delta = r.num();
  const changeId = r.num();
  const liquidity = r.optNum();
  const source = r.optStr();
  const movedFrom = r.optStr();
  return priceState(id, affiliateId, price, main, updatedAt, closedAt, delta, changeId, liquidity, source, movedFrom);
}

function writeStats(out: Out, stats: ReadonlyMap<number, number>): void {
  out.num(stats.size);
  for (const [id, v] of stats) {
    out.num(id);
    out.num(v);
  }
}

function readStats(r: In): Map<number, number> {
  const stats = new Map<number, number>();
  for (let n = r.num(); n > 0; n--) stats.set(r.num(), r.num());
  return stats;
}

function writeGame(out: Out, game: GameState): void {
  out.num(game.plays);
  out.num(game.version);
  out.num(game.teams.size);
  for (const [id, stats] of game.teams) {
    out.num(id);
    writeStats(out, stats);
  }
  out.num(game.players.size);
  for (const [id, line] of game.players) {
    out.num(id);
    out.num(line.team_id);
    out.str(line.display_name);
    out.str(line.position);
    writeStats(out, line.stats);
  }
}

function readGame(r: In): GameState {
  const game: GameState = { plays: r.num(), teams: new Map(), players: new Map(), version: r.num() };
  for (let n = r.num(); n > 0; n--) game.teams.set(r.num(), readStats(r));
  for (let n = r.num(); n > 0; n--) {
    const id = r.num();
    game.players.set(id, { team_id: r.num(), display_name: r.str(), position: r.str(), stats: readStats(r) });
  }
  return game;
}

/** A futures board as plain data (its prices as arrays), written as one JSON text. */
interface FuturesData {
  header: FuturesHeader;
  settlement: FuturesSettlement;
  updated_at: string;
  version: number;
  markets: [number, string, [FuturesParticipant, [number, number, number, string, string, number][]][]][];
}

function futuresData(b: FuturesBoardState): FuturesData {
  return {
    header: b.header,
    settlement: b.settlement,
    updated_at: b.updated_at,
    version: b.version,
    markets: [...b.markets.values()].map((m) => [
      m.market_id,
      m.name,
      [...m.participants.values()].map(({ prices, ...participant }) => [
        participant,
        [...prices.values()].map((p) => [
          p.affiliate_id,
          p.price,
          p.price_delta,
          p.updated_at,
          p.closed_at,
          p.change_id,
        ]),
      ]),
    ]),
  };
}

function futuresBoard(d: FuturesData): FuturesBoardState {
  const markets = new Map<number, FuturesMarketState>();
  for (const [marketId, name, participants] of d.markets) {
    const byId = new Map<number, FuturesParticipant & { prices: Map<number, FuturesPriceState> }>();
    for (const [participant, prices] of participants) {
      const own = new Map<number, FuturesPriceState>();
      for (const [affiliateId, price, delta, updatedAt, closedAt, changeId] of prices) {
        own.set(affiliateId, {
          affiliate_id: affiliateId,
          price,
          price_delta: delta,
          updated_at: updatedAt,
          closed_at: closedAt,
          change_id: changeId,
        });
      }
      byId.set(participant.id, { ...participant, prices: own });
    }
    markets.set(marketId, { market_id: marketId, name, participants: byId });
  }
  return { header: d.header, markets, settlement: d.settlement, updated_at: d.updated_at, version: d.version };
}

/**
 * Encodes `board` with `kept`, the changes its delayed views keep (DelayedViews.kept). A change of
 * an event no longer on the board is left out: a load replays no change of an event it does not
 * load.
 */
export function encodeBoard(board: Board, kept: readonly KeptChange[]): EncodedBoard {
  const seasons = board.seasons.records();
  const out = new Out();
  const eventIndex = new Map<EventState, number>();
  const marketIndex = new Map<MarketState, number>();
  const priceIndex = new Map<PriceState, number>();
  out.num(board.head);
  out.num(board.events.size);
  for (const ev of board.events.values()) {
    eventIndex.set(ev, eventIndex.size);
    out.str(JSON.stringify(ev.info));
    out.num(ev.version);
    out.num(ev.game ? 1 : 0);
    if (ev.game) writeGame(out, ev.game);
    out.num(ev.markets.size);
    for (const [key, m] of ev.markets) {
      marketIndex.set(m, marketIndex.size);
      out.str(key);
      out.num(m.id);
      out.num(m.market_id);
      out.num(m.period_id);
      out.num(m.participants.size);
      for (const [pKey, p] of m.participants) {
        out.str(pKey);
        out.num(p.id);
        out.str(p.type);
        out.str(p.name);
        out.num(p.lines.size);
        for (const [value, line] of p.lines) {
          out.str(value);
          out.str(line.id);
          out.str(line.value);
          out.num(line.prices.size);
          for (const price of line.prices.values()) {
            priceIndex.set(price, priceIndex.size);
            writePrice(out, price);
          }
        }
        out.num(p.mainLines.size);
        for (const [affiliateId, value] of p.mainLines) {
          out.num(affiliateId);
          out.str(value);
        }
      }
    }
  }
  out.num(board.futures.byId.size);
  for (const f of board.futures.byId.values()) out.str(JSON.stringify(futuresData(f)));
  out.num(board.archivedHeaders.size);
  for (const [id, info] of board.archivedHeaders) {
    out.str(id);
    out.str(JSON.stringify(info));
  }
  const catalog = [...board.catalog.allTexts()];
  out.num(catalog.length);
  for (const text of catalog) out.str(text);
  out.num(seasons.length);
  for (const s of seasons) {
    out.str(s.key);
    out.str(s.body);
  }
  const held = [...board.seasonRecords.all()];
  out.num(held.length);
  for (const h of held) {
    out.num(h.id);
    out.num(h.committedMs);
    out.str(h.text);
  }
  // The views' changes: first the price states they name that are not on the board (what a change
  // replaced, and with prices replaced whole, states since replaced), then the changes.
  const changes = kept.filter((k) => board.events.get(k.applied.event.info.event_id) === k.applied.event);
  const detached: PriceState[] = [];
  const place = (p: PriceState) => {
    if (!priceIndex.has(p)) {
      priceIndex.set(p, priceIndex.size);
      detached.push(p);
    }
  };
  for (const { applied } of changes) {
    if (applied.kind !== 'price') continue;
    place(applied.price);
    if (applied.before) place(applied.before);
  }
  out.num(detached.length);
  for (const p of detached) writePrice(out, p);
  out.num(changes.length);
  for (const { id, visibleMs, applied } of changes) {
    out.num(id);
    out.num(visibleMs);
    out.num(eventIndex.get(applied.event)!);
    out.num(applied.beforeVersion);
    if (applied.kind === 'price') {
      const market = marketIndex.get(applied.market);
      if (market === undefined) throw new Error(`a kept change names a market its event no longer holds`);
      out.num(0);
      out.num(market);
      out.num(priceIndex.get(applied.price)!);
      out.num(applied.before ? priceIndex.get(applied.before)! : NONE);
    } else {
      out.num(1);
      out.optStr(applied.before ? JSON.stringify(applied.before) : undefined);
    }
  }
  return out.done();
}

/**
 * Fills `board` (reset first) from an encoded one; returns the views' changes, for the caller to
 * hand to the views. Throws on a malformed input, leaving the board to be reset by the caller.
 */
export function decodeBoard(e: EncodedBoard, board: Board): KeptChange[] {
  const r = new In(e);
  board.reset();
  const head = r.num();
  const events: EventState[] = [];
  const markets: MarketState[] = [];
  const prices: PriceState[] = [];
  for (let n = r.num(); n > 0; n--) {
    const ev = board.newEvent(JSON.parse(r.str()) as EventInfo, r.num());
    events.push(ev);
    if (r.num() === 1) ev.game = readGame(r);
    for (let nm = r.num(); nm > 0; nm--) {
      const key = r.str();
      const m: MarketState = { id: r.num(), market_id: r.num(), period_id: r.num(), participants: new Map() };
      markets.push(m);
      for (let np = r.num(); np > 0; np--) {
        const pKey = r.str();
        const p: ParticipantState = {
          id: r.num(),
          type: r.str() as ParticipantState['type'],
          name: r.str(),
          lines: new SmallMap(),
          mainLines: new SmallMap(),
        };
        for (let nl = r.num(); nl > 0; nl--) {
          const value = r.str();
          const line: LineState = { id: r.str(), value: r.str(), prices: new SmallMap() };
          for (let nx = r.num(); nx > 0; nx--) {
            const price = readPrice(r);
            prices.push(price);
            line.prices.set(price.affiliate_id, price);
          }
          p.lines.set(value, line);
        }
        for (let nx = r.num(); nx > 0; nx--) p.mainLines.set(r.num(), r.str());
        m.participants.set(pKey, p);
      }
      ev.markets.set(key, m);
    }
    board.attachEvent(ev);
  }
  for (let n = r.num(); n > 0; n--) board.futures.add(futuresBoard(JSON.parse(r.str()) as FuturesData));
  for (let n = r.num(); n > 0; n--) board.archivedHeaders.set(r.str(), JSON.parse(r.str()) as EventInfo);
  for (let n = r.num(); n > 0; n--) {
    const text = r.str();
    board.catalog.put(JSON.parse(text) as CatalogRecord, text);
  }
  const seasons: SeasonTotalsRecord[] = [];
  for (let n = r.num(); n > 0; n--) seasons.push({ key: r.str(), body: r.str() });
  for (let n = r.num(); n > 0; n--) {
    const id = r.num();
    const committedMs = r.num();
    const text = r.str();
    board.seasonRecords.put(JSON.parse(text) as SeasonStats, id, committedMs, text);
  }
  for (let n = r.num(); n > 0; n--) prices.push(readPrice(r));
  const kept: KeptChange[] = [];
  const at = <T>(list: readonly T[], i: number): T => {
    const v = list[i];
    if (v === undefined) throw new Error('a kept change names an object the snapshot does not hold');
    return v;
  };
  for (let n = r.num(); n > 0; n--) {
    const id = r.num();
    const visibleMs = r.num();
    const event = at(events, r.num());
    const beforeVersion = r.num();
    let applied: Exclude<Applied, { kind: 'futures' }>;
    if (r.num() === 0) {
      const market = at(markets, r.num());
      const price = at(prices, r.num());
      const before = r.num();
      applied = {
        kind: 'price',
        event,
        market,
        price,
        before: before === NONE ? null : at(prices, before),
        beforeVersion,
      };
    } else {
      const before = r.optStr();
      applied = {
        kind: 'info',
        event,
        before: before === undefined ? null : (JSON.parse(before) as EventInfo),
        beforeVersion,
      };
    }
    kept.push({ id, visibleMs, applied });
  }
  r.end();
  board.seasons.load(seasons);
  board.head = head;
  return kept;
}
