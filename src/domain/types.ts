import type { GameType, ParticipantType } from './value-sets.ts';
import type { DeltaRowSchema } from './delta-row-schema.ts';
import type { Static } from '@sinclair/typebox';

export { PARTICIPANT_TYPES } from './value-sets.ts';
export type { ChangeType, GameType, ParticipantType } from './value-sets.ts';

/**
 * The spec's resources as TypeScript types. Field names are exactly the wire names of
 * the interface specification; these are the shapes the Board holds and the routes serialise.
 */

export type EventStatus =
  | 'STATUS_SCHEDULED'
  | 'STATUS_IN_PROGRESS'
  | 'STATUS_HALFTIME'
  | 'STATUS_FINAL'
  | 'STATUS_POSTPONED'
  | 'STATUS_CANCELED';
export const EVENT_STATUSES: readonly EventStatus[] = [
  'STATUS_SCHEDULED',
  'STATUS_IN_PROGRESS',
  'STATUS_HALFTIME',
  'STATUS_FINAL',
  'STATUS_POSTPONED',
  'STATUS_CANCELED',
];

export interface EventTeam {
  team_id: number;
  name: string;
  mascot: string;
  abbreviation: string;
  record: string;
  is_away: boolean;
  is_home: boolean;
}

export interface Schedule {
  season_type: string;
  season_year: number;
  event_name: string;
  league_name: string;
  game_number?: number;
  game_type?: GameType;
}

export interface Score {
  event_id: string;
  event_status: EventStatus;
  score_away: number;
  score_home: number;
  winner_away: number;
  winner_home: number;
  score_away_by_period: number[];
  score_home_by_period: number[];
  venue_name: string;
  venue_location: string;
  game_clock: number;
  display_clock: string;
  game_period: number;
  broadcast: string;
  event_status_detail: string;
  updated_at: string;
}

/** Event header: everything of an Event except its markets, which the Board keeps apart. */
export interface EventInfo {
  event_id: string;
  sport_id: number;
  event_uuid: string;
  event_date: string;
  rotation_number_away?: number;
  rotation_number_home?: number;
  /** Index 0 away, index 1 home. */
  teams: EventTeam[];
  schedule: Schedule;
  /** Absent until the game has started (spec: a missing score means not started). */
  score?: Score;
  affiliate_source_ids?: Record<string, string>;
  /** Sport-specific live detail; served to Ultra and above only. */
  live_game_state?: Record<string, unknown>;
}

/**
 * What a book may send with a price beyond the price itself: the one definition of these two
 * optional fields. Every price shape extends it (the served Price; the feed's PriceUpdate, the
 * change row's PriceFact and PriceDetail, the board's PriceState), and PriceSchema is tied to Price.
 */
export interface PriceExtras {
  liquidity_usd?: number;
  source_id?: string;
}

/** The Price object of a Line, as served. */
export interface Price extends PriceExtras {
  id: string;
  price: number;
  is_main_line: boolean;
  updated_at: string;
  price_delta?: number;
  closed_at?: string;
}

export interface Line {
  id: string;
  value: string;
  prices: Record<string, Price>;
}

export interface Participant {
  id: number;
  type: ParticipantType;
  name: string;
  lines: Line[];
}

export interface Market {
  id: number;
  market_id: number;
  period_id: number;
  name: string;
  market_description: string;
  participants: Participant[];
}

export interface Event extends EventInfo {
  markets: Market[];
}

/** The Delta row of the markets delta feed, exactly as the spec lists it: the schema's type. */
export type DeltaRow = Static<typeof DeltaRowSchema>;

export interface MarketDefinition {
  id: number;
  name: string;
  description: string;
  short_description: string;
  line_value_is_participant: boolean;
  proposition: boolean;
  period_id: number;
  live_variant_id?: number;
  updated_at: string;
}

export interface Sport {
  sport_id: number;
  sport_name: string;
}

export type AffiliateStatus = 'healthy' | 'unhealthy' | 'beta';

export interface Affiliate {
  affiliate_id: number;
  affiliate_name: string;
  affiliate_url: string;
  status: AffiliateStatus;
  regions: string[];
}
