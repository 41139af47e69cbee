import type { DeltaRow, Event, FuturesPage, Price } from '../../../packages/client/src/index.ts';
import type { ParticipantType, Score } from '../../domain/types.ts';
import type { EventUpsert, PriceUpdate, ScoreUpdate, Update, UpdateBatch } from '../../ledger/updates.ts';

/**
 * The upstream's answers turned into the ingest records of src/feeds/ingest (the ledger's updates),
 * with the upstream's ids kept: event, team, player, market instance, line and price. A price is sent
 * with the time it describes (`updated_at`) as its batch's `at`, so the mirror's rows carry the
 * upstream's times.
 */

/** One update with the time it describes. */
export interface Timed {
  at: string;
  update: Update;
}

/** An event's header record, as the upstream shows it. */
export function eventRecord(e: Event): EventUpsert {
  const header: EventUpsert['event'] = {
    event_id: e.event_id,
    sport_id: e.sport_id,
    event_uuid: e.event_uuid,
    event_date: e.event_date,
    teams: e.teams.map((t) => ({
      team_id: t.team_id,
      name: t.name,
      mascot: t.mascot,
      abbreviation: t.abbreviation,
      record: t.record,
      is_away: t.is_away,
      is_home: t.is_home,
    })),
    schedule: { ...e.schedule },
  };
  if (e.rotation_number_away !== undefined) header.rotation_number_away = e.rotation_number_away;
  if (e.rotation_number_home !== undefined) header.rotation_number_home = e.rotation_number_home;
  if (e.affiliate_source_ids !== undefined) header.affiliate_source_ids = { ...e.affiliate_source_ids };
  return { kind: 'event', event: header };
}

/** The event's score and live state, when it has a score (a missing one: not started). */
export function scoreRecord(e: Event): ScoreUpdate | undefined {
  if (!e.score) return undefined;
  // A state the upstream no longer shows is cleared (null), not kept.
  const live = (e.live_game_state as Record<string, unknown> | undefined) ?? null;
  return { kind: 'score', event_id: e.event_id, score: { ...e.score } as Score, live_game_state: live };
}

/** Every price an event shows, as timed price records carrying the upstream's ids. */
export function priceRecords(e: Event): Timed[] {
  const out: Timed[] = [];
  for (const m of e.markets) {
    for (const p of m.participants) {
      for (const line of p.lines) {
        for (const [book, price] of Object.entries(line.prices)) {
          out.push({
            at: price.updated_at,
            update: priceUpdate(
              e.event_id,
              m.id,
              m.market_id,
              m.period_id,
              p,
              line.id,
              line.value,
              Number(book),
              price,
            ),
          });
        }
      }
    }
  }
  return out;
}

function priceUpdate(
  eventId: string,
  instanceId: number,
  marketId: number,
  periodId: number,
  p: { id: number; type: string; name: string },
  lineId: string,
  value: string,
  book: number,
  price: Price,
): PriceUpdate {
  const u: PriceUpdate = {
    kind: 'price',
    event_id: eventId,
    market_id: marketId,
    period_id: periodId,
    participant_id: p.id,
    participant_type: p.type as ParticipantType,
    participant_name: p.name,
    line: value,
    affiliate_id: book,
    price: price.price,
    is_main_line: price.is_main_line,
    closed: (price.closed_at ?? '') !== '',
    price_id: Number(price.id),
    market_instance_id: instanceId,
    line_id: lineId,
    keep_time: true,
  };
  if (price.liquidity_usd !== undefined) u.liquidity_usd = price.liquidity_usd;
  if (price.source_id !== undefined) u.source_id = price.source_id;
  return u;
}

/** Where the mirror keeps a delta row's price: its period and ids, when the mirror holds that price. */
export interface HeldPrice {
  periodId: number;
  priceId: number;
  instanceId: number;
  lineId: string;
  /** The held price's extras, which a delta row does not carry: kept as they are. */
  liquidityUsd?: number;
  sourceId?: string;
}

/**
 * What a price move names: a markets-delta row's fields, or a stream frame's in their terms (which
 * carries the book's liquidity as well).
 */
export type PriceMove = Pick<
  DeltaRow,
  | 'event_id'
  | 'market_id'
  | 'participant_id'
  | 'participant_type'
  | 'participant_name'
  | 'line'
  | 'affiliate_id'
  | 'price'
  | 'is_main_line'
  | 'closed_at'
  | 'updated_at'
> & { liquidity_usd?: number };

/**
 * A price move (a markets-delta row, a stream frame) as a price record, when the mirror already
 * holds the price it moves (the move names no period and no ids: the held price gives them);
 * undefined when it does not, and the event is then read whole.
 */
export function deltaRecord(row: PriceMove, held: HeldPrice | undefined): Timed | undefined {
  if (!held) return undefined;
  const update: PriceUpdate = {
    kind: 'price',
    event_id: row.event_id,
    market_id: row.market_id,
    period_id: held.periodId,
    participant_id: row.participant_id,
    participant_type: row.participant_type as ParticipantType,
    participant_name: row.participant_name,
    line: row.line,
    affiliate_id: row.affiliate_id,
    price: Number(row.price),
    is_main_line: row.is_main_line,
    closed: row.closed_at !== '',
    price_id: held.priceId,
    market_instance_id: held.instanceId,
    line_id: held.lineId,
    keep_time: true,
  };
  const liquidity = row.liquidity_usd ?? held.liquidityUsd;
  if (liquidity !== undefined) update.liquidity_usd = liquidity;
  if (held.sourceId !== undefined) update.source_id = held.sourceId;
  return { at: row.updated_at, update };
}

/** A sport's futures boards: each board's header, then its prices at their times, then its settlement. */
export function futuresRecords(page: FuturesPage): { header: Timed[]; prices: Timed[]; settled: Timed[] } {
  const header: Timed[] = [];
  const prices: Timed[] = [];
  const settled: Timed[] = [];
  for (const b of page.events) {
    header.push({
      at: b.starts_at,
      update: {
        kind: 'futures_board',
        board: {
          event_id: b.event_id,
          sport_id: b.sport_id,
          name: b.name,
          season_year: b.season_year,
          starts_at: b.starts_at,
          ends_at: b.ends_at,
          markets: b.markets.map((m) => ({
            market_id: m.market_id,
            name: m.name,
            participants: m.participants.map((p) => ({
              id: p.id,
              name: p.name,
              type: p.type,
              ...(p.team_id === undefined ? {} : { team_id: p.team_id }),
            })),
          })),
        },
      },
    });
    for (const m of b.markets) {
      for (const p of m.participants) {
        for (const [book, price] of Object.entries(p.prices)) {
          const priced = (value: number): Timed => ({
            at: price.updated_at,
            update: {
              kind: 'futures_price',
              event_id: b.event_id,
              market_id: m.market_id,
              participant_id: p.id,
              affiliate_id: Number(book),
              price: value,
            },
          });
          // The board shows the move to this price (price_delta): the previous price goes first, at
          // the same time (its own time is not shown), so the mirror's move is the upstream's.
          if (price.price_delta !== 0) prices.push(priced(price.price - price.price_delta));
          prices.push(priced(price.price));
        }
      }
    }
    const decided = Object.values(b.settlement).find((s) => s.state !== 'open');
    if (decided && (decided.state === 'settled' || decided.state === 'void')) {
      settled.push({
        at: decided.settled_at,
        update: {
          kind: 'futures_settlement',
          event_id: b.event_id,
          state: decided.state,
          winner_participant_id: decided.winner_participant_id,
        },
      });
    }
  }
  return { header, prices, settled };
}

/** Largest batch the mirror hands the ledger: the ingest route's own bound. */
export const MIRROR_BATCH = 2_000;

/**
 * Timed updates as ledger batches in the order given: a batch per run of one time, cut at
 * MIRROR_BATCH, so each row carries the time the upstream gave it.
 */
export function batchesOf(items: readonly Timed[]): UpdateBatch[] {
  const out: UpdateBatch[] = [];
  let current: UpdateBatch | undefined;
  for (const { at, update } of items) {
    if (!current || current.at !== at || current.updates.length >= MIRROR_BATCH) {
      current = { at, updates: [] };
      out.push(current);
    }
    current.updates.push(update);
  }
  return out;
}

/** Sorts timed updates by time, keeping the given order among equal times. */
export function byTime(items: Timed[]): Timed[] {
  return items
    .map((t, i) => [t, i] as const)
    .sort((a, b) => (a[0].at < b[0].at ? -1 : a[0].at > b[0].at ? 1 : a[1] - b[1]))
    .map(([t]) => t);
}
