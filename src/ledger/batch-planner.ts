import { createHash } from 'node:crypto';
import type { PlannedPrice } from '../board/apply.ts';
import type { Board } from '../board/board.ts';
import {
  type EventState,
  type LineState,
  type MarketState,
  marketKey,
  type ParticipantState,
  type PriceState,
  participantKey,
} from '../board/event-state.ts';
import { SmallMap } from '../board/small-map.ts';
import { unlistedMarketName } from '../catalog/catalog.ts';
import { catalogKey, catalogText } from '../catalog/records.ts';
import { CATALOG_EVENT_ID, type Change, type StatValue } from '../changelog/change.ts';
import { withHeader, withScore } from '../domain/event-header.ts';
import { priceDelta } from '../domain/odds.ts';
import { type Play, playFields } from '../domain/plays.ts';
import type { ChangeType } from '../domain/types.ts';
import { newRowWriter } from '../perf/delta-row-text.ts';
import { priceState } from '../perf/price-state.ts';
import type { BatchPlan } from './batch-plan.ts';
import type { PlannedFutures } from './futures-plan.ts';
import { LedgerError } from './ledger-errors.ts';
import { boxRowsOf, statRowsOf } from './stat-rows.ts';
import { planSeasonStats } from './season-planner.ts';
import { StatTable, statIdClashes } from '../catalog/stat-table.ts';
import type {
  BoxScoreUpdate,
  CatalogUpdate,
  EventUpsert,
  PlayUpdate,
  PriceUpdate,
  ScoreUpdate,
  UpdateBatch,
} from './updates.ts';

/** Line id: 32 hex characters, a pure function of what identifies the line, so it never changes. */
export function lineId(eventId: string, marketId: number, periodId: number, pKey: string, value: string): string {
  return createHash('md5').update(`${eventId}|${marketId}|${periodId}|${pKey}|${value}`).digest('hex');
}

/**
 * Plans a batch's change rows from the committed state (ids in commit order, change_type,
 * previous_price, price_delta, closed_at, the main-line flag kept on exactly one line per book and
 * participant) into a BatchPlan, without touching the board. It hands out market instance and
 * price ids; the ledger sets them back when a plan is dropped.
 */
export class BatchPlanner {
  /** The next market instance id and price id to hand out. */
  nextMarketId = 1;
  nextPriceId = 1;
  /** The market the last price update went to, and its event. */
  private lastMarket: MarketState | undefined;
  private lastMarketEvent: EventState | undefined;
  private readonly rows = newRowWriter();

  /** Hands out ids from these on, forgetting the last market found (it may not be on the board). */
  restart(nextMarketId: number, nextPriceId: number): void {
    this.nextMarketId = nextMarketId;
    this.nextPriceId = nextPriceId;
    this.lastMarket = undefined;
    this.lastMarketEvent = undefined;
  }

  /**
   * Plans the updates of `batch` from `from` up to `to` over `board` into `plan`, its rows described
   * at `at`: a batch may be planned a part at a time, each part after the one before, into one
   * plan. Throws LedgerError, or FuturesUpdateError for a futures update the futures plan refuses.
   */
  plan(board: Board, plan: BatchPlan, batch: UpdateBatch, at: string, from = 0, to = batch.updates.length): void {
    const committedMs = plan.committedMs;
    const futures = plan.futures;
    const planFutures = (made: PlannedFutures | undefined) => {
      if (made) plan.add(made.record, { kind: 'info', change: made.change });
    };
    for (let i = from; i < to; i++) {
      const u = batch.updates[i]!;
      switch (u.kind) {
        case 'event':
          this.planEvent(plan, u, at);
          break;
        case 'score':
          this.planScore(plan, u, at);
          break;
        case 'price':
          this.planPrice(plan, u, at);
          break;
        case 'play':
          this.planPlay(plan, u, at);
          break;
        case 'box_score':
          this.planBoxScore(plan, u, at);
          break;
        case 'futures_board':
          planFutures(futures.board(u, () => plan.nextId(), at, committedMs));
          break;
        case 'futures_price':
          planFutures(futures.price(u, () => plan.nextId(), at, committedMs));
          break;
        case 'futures_settlement':
          planFutures(futures.settle(u, plan.nextId(), at, committedMs));
          break;
        case 'catalog':
          planCatalog(board, plan, u, at);
          break;
        case 'season_stats':
          planSeasonStats(board, plan, u, at);
          break;
        default:
          return assertNeverUpdate(u);
      }
    }
  }

  private planEvent(plan: BatchPlan, u: EventUpsert, at: string): void {
    const header = u.event;
    const current = plan.info(header.event_id);
    if (current) {
      const { score: _s, live_game_state: _l, ...rest } = current;
      if (JSON.stringify(rest) === JSON.stringify(header)) return;
    }
    const id = plan.nextId();
    const info = withHeader(current, header);
    const fresh = current ? undefined : plan.freshEvent(header, id);
    plan.setInfo(header.event_id, info);
    plan.add(
      {
        id,
        kind: 'event',
        event_id: header.event_id,
        sport_id: header.sport_id,
        at,
        committed_ms: plan.committedMs,
        price_id: null,
        affiliate_id: null,
        market_id: null,
        payload: JSON.stringify(header),
        detail: null,
      },
      { kind: 'info', change: { kind: 'event', id, header }, fresh },
    );
  }

  private planScore(plan: BatchPlan, u: ScoreUpdate, at: string): void {
    const info = withScore(plan.info(u.event_id)!, u);
    const id = plan.nextId();
    plan.setInfo(u.event_id, info);
    const change: Change = { kind: 'score', id, event_id: u.event_id, score: u.score };
    if (u.live_game_state !== undefined) change.live_game_state = u.live_game_state;
    plan.add(
      {
        id,
        kind: 'score',
        event_id: u.event_id,
        sport_id: info.sport_id,
        at,
        committed_ms: plan.committedMs,
        price_id: null,
        affiliate_id: null,
        market_id: null,
        payload: JSON.stringify({ score: u.score, live_game_state: u.live_game_state }),
        detail: null,
      },
      { kind: 'info', change },
    );
  }

  /** A play row numbered after the event's last play, then a stat row per box-score value it changes. */
  private planPlay(plan: BatchPlan, u: PlayUpdate, at: string): void {
    const info = plan.info(u.event_id)!;
    const ev = plan.event(u.event_id)!;
    const cells = statRowsOf(
      info,
      plan.stats(),
      u.play,
      (cell) => plan.statValue(ev, cell),
      (id) => plan.knowsPlayer(ev, id),
      (message) => {
        throw new LedgerError(message);
      },
    );
    const sequence = plan.nextSequence(ev);
    const p = u.play;
    if (p.sequence !== undefined && p.sequence !== sequence) {
      throw new LedgerError(
        `play ${p.sequence} of event ${u.event_id} is not its next play, ${sequence}: plays are numbered without gaps`,
      );
    }
    if (p.created_at !== undefined && Number.isNaN(Date.parse(p.created_at))) {
      throw new LedgerError(`play created_at is not ISO 8601: ${p.created_at}`);
    }
    const id = plan.nextId();
    // The served shape, in the field order of the served JSON.
    const play: Play = {
      event_id: u.event_id,
      sequence,
      ...playFields(p),
      created_at: p.created_at ?? at,
    };
    const base = { event_id: u.event_id, sport_id: info.sport_id, at, committed_ms: plan.committedMs };
    const none = { price_id: null, affiliate_id: null, market_id: null, detail: null };
    plan.add(
      { id, kind: 'play', ...base, ...none, payload: JSON.stringify(play) },
      { kind: 'info', change: { kind: 'play', id, event_id: u.event_id, sequence } },
    );
    planStats(plan, ev, cells, base);
  }

  /** A stat row per box-score value the update changes. */
  private planBoxScore(plan: BatchPlan, u: BoxScoreUpdate, at: string): void {
    const info = plan.info(u.event_id)!;
    const ev = plan.event(u.event_id)!;
    const cells = boxRowsOf(
      info,
      u,
      plan.stats(),
      (cell) => plan.statValue(ev, cell),
      (id) => plan.knowsPlayer(ev, id),
      () => plan.heldCells(ev),
      (message) => {
        throw new LedgerError(message);
      },
    );
    planStats(plan, ev, cells, { event_id: u.event_id, sport_id: info.sport_id, at, committed_ms: plan.committedMs });
  }

  private planPrice(plan: BatchPlan, u: PriceUpdate, at: string): void {
    const ev = plan.event(u.event_id)!;
    const market = this.market(plan, ev, u.market_id, u.period_id, u.market_instance_id);
    const freshMarket = plan.isFreshMarket(market);
    const participant = plan.participant(market, u);
    const freshParticipant = plan.isFreshParticipant(participant);
    let line = plan.line(participant, u.line);
    let freshLine = false;
    if (!line) {
      const pKey = participantKey(u.participant_type, u.participant_id);
      line = {
        id: u.line_id ?? lineId(u.event_id, u.market_id, u.period_id, pKey, u.line),
        value: u.line,
        prices: new SmallMap(),
      };
      plan.addLine(participant, line);
      freshLine = true;
    }
    const prev = plan.price(line, u.affiliate_id);
    const wantMain = u.is_main_line ?? prev?.is_main_line ?? false;
    const closedAt = u.closed ? prev?.closed_at || at : '';
    if (
      prev &&
      prev.price === u.price &&
      prev.closed_at === closedAt &&
      prev.is_main_line === wantMain &&
      prev.liquidity_usd === u.liquidity_usd &&
      prev.source_id === u.source_id &&
      (!u.keep_time || prev.updated_at === at)
    ) {
      return;
    }
    let movedFrom: PriceState | undefined;
    let movedFromLine: string | undefined;
    if (wantMain) {
      const oldValue = plan.mainLine(participant, u.affiliate_id);
      if (oldValue !== undefined && oldValue !== u.line) {
        const oldLine = plan.line(participant, oldValue);
        const old = oldLine && plan.price(oldLine, u.affiliate_id);
        if (oldLine && old?.is_main_line) {
          movedFrom = old;
          movedFromLine = oldValue;
          const step = plannedStep(ev, market, participant, oldLine, freshMarket, freshParticipant, false);
          this.writePrice(
            plan,
            step,
            old,
            old.price,
            false,
            old.closed_at,
            old.liquidity_usd,
            old.source_id,
            at,
            u.affiliate_id,
          );
        }
      }
      plan.setMainLine(participant, u.affiliate_id, u.line);
    } else if (prev?.is_main_line && plan.mainLine(participant, u.affiliate_id) === u.line) {
      plan.setMainLine(participant, u.affiliate_id, undefined);
    }
    const step = plannedStep(ev, market, participant, line, freshMarket, freshParticipant, freshLine);
    this.writePrice(
      plan,
      step,
      prev,
      u.price,
      wantMain,
      closedAt,
      u.liquidity_usd,
      u.source_id,
      at,
      u.affiliate_id,
      movedFrom,
      movedFromLine,
      u.price_id,
    );
  }

  /**
   * Plans one price row onto `step` (its path on the board, `state` still to be made). `movedFrom`
   * is the book's previous main line when this write moves the main line here, `movedFromLine` that
   * line's value. Positional arguments: this runs once per update, and objects made only to carry
   * arguments were a measurable share of the ledger's garbage.
   */
  private writePrice(
    plan: BatchPlan,
    step: PlannedPrice,
    prev: PriceState | undefined,
    price: number,
    isMainLine: boolean,
    closedAt: string,
    liquidityUsd: number | undefined,
    sourceId: string | undefined,
    at: string,
    affiliateId: number,
    movedFrom?: PriceState,
    movedFromLine?: string,
    givenId?: number,
  ): void {
    const { ev, market, participant, line } = step;
    // A main-line move is a line_change on both lines, even when the new line is priced for the
    // first time; its previous price is then the one the side had on the old main line.
    const previous = prev ?? movedFrom;
    const changeType: ChangeType =
      movedFrom || (prev && prev.is_main_line !== isMainLine) ? 'line_change' : prev ? 'price_change' : 'new';
    const previousPrice = previous?.price;
    const id = plan.nextId();
    // A planned state is never changed once made: the board takes it over (a new price) or copies it.
    const state = priceState(
      prev?.id ?? this.newId('price', givenId),
      affiliateId,
      price,
      isMainLine,
      at,
      closedAt,
      priceDelta(previousPrice, price),
      id,
      liquidityUsd,
      sourceId,
      movedFromLine,
    );
    step.state = state;
    plan.setPrice(line, state, prev);
    const info = ev.info;
    // Streams send no message for a row that only moved liquidity or the source id.
    const quoteUnchanged =
      prev !== undefined &&
      !movedFrom &&
      prev.price === price &&
      prev.closed_at === closedAt &&
      prev.is_main_line === isMainLine;
    plan.add(
      {
        id,
        kind: 'price',
        event_id: info.event_id,
        sport_id: info.sport_id,
        at,
        price_id: state.id,
        affiliate_id: affiliateId,
        market_id: market.market_id,
        committed_ms: plan.committedMs,
        payload: this.rows.write(
          id,
          info,
          affiliateId,
          market,
          plan.marketName(market.market_id),
          participant,
          line,
          price,
          previousPrice,
          changeType,
          isMainLine,
          closedAt,
          at,
        ),
        detail: this.rows.detail(
          state.id,
          market,
          line,
          state.price_delta,
          liquidityUsd,
          sourceId,
          movedFromLine,
          quoteUnchanged,
        ),
      },
      step,
    );
  }

  /**
   * A new price or market-instance id: the one a feed gave (its counter then continues above it,
   * so ids made later never meet it), else the counter's next.
   */
  private newId(kind: 'price' | 'market', given: number | undefined): number {
    const counter = kind === 'price' ? 'nextPriceId' : 'nextMarketId';
    if (given === undefined) return this[counter]++;
    if (given >= this[counter]) this[counter] = given + 1;
    return given;
  }

  /** The event's market of these ids, committed or planned; a new one is planned when it has none. */
  private market(plan: BatchPlan, ev: EventState, marketId: number, periodId: number, givenId?: number): MarketState {
    // Feeds send a market's prices together: the last market found saves building and hashing its key.
    const last = this.lastMarket;
    if (last && last.market_id === marketId && last.period_id === periodId && this.lastMarketEvent === ev) return last;
    const key = marketKey(marketId, periodId);
    let market = plan.market(ev, key);
    if (!market) {
      market = { id: this.newId('market', givenId), market_id: marketId, period_id: periodId, participants: new Map() };
      plan.addMarket(ev, key, market);
    }
    this.lastMarket = market;
    this.lastMarketEvent = ev;
    return market;
  }
}

/** Stat rows for `values` of `ev`, each set in the plan as it goes. */
function planStats(
  plan: BatchPlan,
  ev: EventState,
  values: readonly StatValue[],
  base: { event_id: string; sport_id: number; at: string; committed_ms: number },
): void {
  for (const stat of values) {
    const id = plan.nextId();
    plan.setStatValue(ev, stat);
    plan.add(
      {
        id,
        kind: 'stat',
        ...base,
        price_id: null,
        affiliate_id: null,
        market_id: null,
        detail: null,
        payload: JSON.stringify(stat),
      },
      { kind: 'info', change: { kind: 'stat', id, event_id: base.event_id, stat } },
    );
  }
}

/** A price step whose state `writePrice` fills in; one object per planned row. */
function plannedStep(
  ev: EventState,
  market: MarketState,
  participant: ParticipantState,
  line: LineState,
  freshMarket: boolean,
  freshParticipant: boolean,
  freshLine: boolean,
): PlannedPrice {
  return { kind: 'price', ev, market, participant, line, freshMarket, freshParticipant, freshLine, state: NO_STATE };
}

/** Stands in for a step's state until `writePrice` makes it, so every step has one shape. */
const NO_STATE = Object.freeze({}) as PriceState;

/**
 * A catalog row, unless the record equals the one its key has (committed, or earlier in the batch),
 * or is a removal of a key that has no record.
 */
function planCatalog(board: Board, plan: BatchPlan, u: CatalogUpdate, at: string): void {
  const key = catalogKey(u.record);
  const text = catalogText(u.record);
  const planned = plan.catalogTexts.get(key);
  if ((planned ?? board.catalog.textOf(key)) === text) return;
  if (u.record.type === 'removal' && (planned !== undefined ? plan.removals.has(key) : !board.catalog.holds(key)))
    return;
  if (u.record.type === 'removal') plan.removals.add(key);
  else plan.removals.delete(key);
  plan.catalogTexts.set(key, text);
  if (u.record.type === 'market') plan.marketNames.set(u.record.id, u.record.name);
  if (u.record.type === 'stats') {
    const clash = statIdClashes(u.record, plan.stats())[0];
    if (clash) {
      throw new LedgerError(
        `stats of sport ${u.record.sport_id}: stat id ${clash.statId} is sport ${clash.sportId}'s (stat ids are unique across sports)`,
      );
    }
    plan.statTables.set(u.record.sport_id, new StatTable(u.record));
  }
  if (u.record.type === 'removal' && key.startsWith(STATS_KEY))
    plan.statTables.set(Number(key.slice(STATS_KEY.length)), undefined);
  if (u.record.type === 'removal' && key.startsWith(MARKET_KEY)) {
    const marketId = Number(key.slice(MARKET_KEY.length));
    plan.marketNames.set(marketId, unlistedMarketName(marketId));
  }
  const id = plan.nextId();
  plan.add(
    {
      id,
      kind: 'catalog',
      event_id: CATALOG_EVENT_ID,
      sport_id: u.record.type === 'sport' ? u.record.sport_id : 0,
      at,
      committed_ms: plan.committedMs,
      price_id: null,
      affiliate_id: u.record.type === 'book' ? u.record.affiliate_id : null,
      market_id: u.record.type === 'market' ? u.record.id : null,
      payload: text,
      detail: null,
    },
    { kind: 'info', change: { kind: 'catalog', id, record: u.record, text } },
  );
}

const MARKET_KEY = 'market:';
const STATS_KEY = 'stats:';

function assertNeverUpdate(u: never): never {
  throw new LedgerError(`unknown update kind: ${JSON.stringify(u)}`);
}
