import type { Static } from '@sinclair/typebox';
import { CATALOG_EVENT_ID, type ChangeRecord, type PriceDetail, SEASON_EVENT_ID } from '../../src/changelog/change.ts';
import type { DeltaRowSchema } from '../../src/domain/delta-row-schema.ts';
import type { Commit, EventRecord, MarketRecord } from '../../src/store/store.ts';

// Change records shaped as the ledger writes them, small enough to read in a test.

export const BASE_MS = Date.UTC(2026, 10, 23, 18, 0, 0);

/** The 24-character UTC time `seconds` after the fixtures' base time. */
export function time(seconds: number): string {
  return new Date(BASE_MS + seconds * 1000).toISOString();
}

interface RowArgs {
  id: number;
  event_id?: string;
  sport_id?: number;
  /** Defaults to time(id), so row times follow the ids unless a test says otherwise. */
  at?: string;
  /** Defaults to BASE_MS + id seconds: never decreasing along the ids, as the ledger guarantees. */
  committed_ms?: number;
}

export interface PriceRowArgs extends RowArgs {
  price_id: number;
  affiliate_id?: number;
  market_id?: number;
  price?: number;
  is_main_line?: boolean;
  period_id?: number;
}

export const EVENT_A = 'a'.repeat(32);
export const EVENT_B = 'b'.repeat(32);

function base(a: RowArgs): Pick<ChangeRecord, 'id' | 'event_id' | 'sport_id' | 'at' | 'committed_ms'> {
  return {
    id: a.id,
    event_id: a.event_id ?? EVENT_A,
    sport_id: a.sport_id ?? 4,
    at: a.at ?? time(a.id),
    committed_ms: a.committed_ms ?? BASE_MS + a.id * 1000,
  };
}

/** A price row: its payload the spec's Delta row, its detail the ledger's PriceDetail. */
export function priceRow(a: PriceRowArgs): ChangeRecord {
  const row = base(a);
  const affiliateId = a.affiliate_id ?? 19;
  const marketId = a.market_id ?? 1;
  const delta: Static<typeof DeltaRowSchema> = {
    id: row.id,
    event_id: row.event_id,
    sport_id: row.sport_id,
    affiliate_id: affiliateId,
    market_id: marketId,
    market_name: `Market ${marketId}`,
    participant_id: 2002,
    participant_type: 'TYPE_TEAM',
    participant_name: 'Boston Celtics',
    line: '-3.5',
    price: String(a.price ?? -110),
    previous_price: '',
    change_type: 'new',
    is_main_line: a.is_main_line ?? true,
    closed_at: '',
    updated_at: row.at,
  };
  const detail: PriceDetail = {
    price_id: a.price_id,
    period_id: a.period_id ?? 0,
    market_instance_id: marketId,
    line_id: `${row.event_id}:${marketId}:-3.5`,
    price_delta: 0,
  };
  return {
    ...row,
    kind: 'price',
    price_id: a.price_id,
    affiliate_id: affiliateId,
    market_id: marketId,
    payload: JSON.stringify(delta),
    detail: JSON.stringify(detail),
  };
}

/** An event row: a header update, with no price, book or market. */
export function eventRow(a: RowArgs): ChangeRecord {
  const row = base(a);
  return {
    ...row,
    kind: 'event',
    price_id: null,
    affiliate_id: null,
    market_id: null,
    payload: JSON.stringify({
      event_id: row.event_id,
      sport_id: row.sport_id,
      event_date: '2026-11-23T23:00:00Z',
    }),
    detail: null,
  };
}

/** A score row. */
export function scoreRow(a: RowArgs & { home?: number; away?: number }): ChangeRecord {
  const row = base(a);
  return {
    ...row,
    kind: 'score',
    price_id: null,
    affiliate_id: null,
    market_id: null,
    payload: JSON.stringify({ score: { score_home: a.home ?? 0, score_away: a.away ?? 0 } }),
    detail: null,
  };
}

/** A play row: its payload the served Play, numbered `sequence`. */
export function playRow(a: RowArgs & { sequence: number }): ChangeRecord {
  const row = base(a);
  return {
    ...row,
    kind: 'play',
    price_id: null,
    affiliate_id: null,
    market_id: null,
    payload: JSON.stringify({ event_id: row.event_id, sequence: a.sequence, description: `play ${a.sequence}` }),
    detail: null,
  };
}

/** A stat row: one box-score value of team 2002 (or of a player of it). */
export function statRow(
  a: RowArgs & {
    stat_id: number;
    value: number;
    player_id?: number;
    named?: { display_name: string; position: string };
  },
): ChangeRecord {
  const row = base(a);
  const stat =
    a.player_id === undefined
      ? { team_id: 2002, stat_id: a.stat_id, value: String(a.value) }
      : { team_id: 2002, player_id: a.player_id, stat_id: a.stat_id, value: String(a.value), ...a.named };
  return {
    ...row,
    kind: 'stat',
    price_id: null,
    affiliate_id: null,
    market_id: null,
    payload: JSON.stringify(stat),
    detail: null,
  };
}

export function eventRecord(eventId: string, changeId: number, sportId = 4): EventRecord {
  return {
    event_id: eventId,
    sport_id: sportId,
    event_date: '2026-11-23T23:00:00Z',
    info: JSON.stringify({ event_id: eventId, sport_id: sportId, change_id: changeId }),
    change_id: changeId,
  };
}

export function marketRecord(id: number, eventId: string, marketId: number, periodId = 0): MarketRecord {
  return { id, event_id: eventId, market_id: marketId, period_id: periodId };
}

export function batch(
  changes: ChangeRecord[],
  more: { events?: EventRecord[]; markets?: MarketRecord[] } = {},
): Commit {
  return { changes, events: more.events ?? [], markets: more.markets ?? [] };
}

/** A season row: one team's season aggregate of a year and type under the season event id. */
export function seasonRow(a: RowArgs & { team_id: number; season_type: number; points: number }): ChangeRecord {
  const row = base({ ...a, event_id: SEASON_EVENT_ID, sport_id: 4 });
  const record = {
    team_id: a.team_id,
    year: 2026,
    season_type: a.season_type,
    stats: [{ stat_id: 4001, value: String(a.points) }],
    players: [],
  };
  return {
    ...row,
    kind: 'season',
    price_id: null,
    affiliate_id: null,
    market_id: null,
    payload: JSON.stringify(record),
    detail: null,
  };
}

/** A catalog row: a book record under the catalog's event id. */
export function catalogRow(a: RowArgs & { affiliate_id: number; name: string }): ChangeRecord {
  const row = base({ ...a, event_id: CATALOG_EVENT_ID, sport_id: 0 });
  const record = {
    type: 'book',
    affiliate_id: a.affiliate_id,
    affiliate_name: a.name,
    affiliate_url: '',
    status: 'healthy',
    regions: [],
  };
  return {
    ...row,
    kind: 'catalog',
    price_id: null,
    affiliate_id: a.affiliate_id,
    market_id: null,
    payload: JSON.stringify(record),
    detail: null,
  };
}
