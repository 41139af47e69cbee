import { Type } from '@sinclair/typebox';
import { StringEnum } from '../domain/value-sets.ts';
import type { Tie } from '../domain/shape-tie.ts';
import type { Score } from '../domain/types.ts';
import { ErrorBody } from './schemas.ts';

/**
 * The line-based (V1) wire schemas: the OpenAPI document, fastify's serialisers and the per-event
 * serialiser of the V1 cache come from these. Numbers are JSON numbers; 0.0001 marks a price or line
 * that is off the board or not offered.
 */

const Num = (description: string) => Type.Number({ description });
const Delta = (of: string) => Num(`change of ${of} in its latest update; 0 when it did not change`);
const Updated = Type.String({
  description:
    'latest updated_at of the prices shown; with none shown, the latest of the book’s prices on the event ' +
    '(else the event’s start): never empty',
});
const LineId = Type.Integer({ description: 'the line set’s line id: the id /api/v1/lines/{id}/… takes; 0 when none' });
const placedItem = { event_id: Type.String(), affiliate_id: Type.Integer() };
const placed = { line_id: LineId, ...placedItem };
/** The spec: odds are American odds. */
const Format = StringEnum(['American'], { description: 'odds format' });

export const V1AffiliateSchema = Type.Object({
  affiliate_id: Type.Integer(),
  affiliate_name: Type.String(),
  affiliate_url: Type.String(),
});

export const MoneylineSchema = Type.Object({
  ...placed,
  moneyline_away: Num('away price'),
  moneyline_away_delta: Delta('the away price'),
  moneyline_home: Num('home price'),
  moneyline_home_delta: Delta('the home price'),
  moneyline_draw: Num('draw price; 0.0001 where the moneyline has no draw'),
  moneyline_draw_delta: Delta('the draw price'),
  date_updated: Updated,
  format: Format,
});

const spreadPair = {
  ...placedItem,
  point_spread_away: Num('away points'),
  point_spread_away_money: Num('away price'),
  point_spread_home: Num('home points'),
  point_spread_home_money: Num('home price'),
  date_updated: Updated,
};
export const ExtendedSpreadSchema = Type.Object(spreadPair);

export const SpreadSchema = Type.Object({
  ...placed,
  ...spreadPair,
  point_spread_away_delta: Delta('the away points (a main-line move)'),
  point_spread_away_money_delta: Delta('the away price'),
  point_spread_home_delta: Delta('the home points (a main-line move)'),
  point_spread_home_money_delta: Delta('the home price'),
  format: Format,
  extended_spreads: Type.Array(ExtendedSpreadSchema, { description: 'the book’s alternate spreads' }),
});

const totalPair = {
  ...placedItem,
  total_over: Num('points of the Over'),
  total_over_money: Num('its price'),
  total_under: Num('points of the Under'),
  total_under_money: Num('its price'),
  date_updated: Updated,
};
export const ExtendedTotalSchema = Type.Object(totalPair);

export const TotalSchema = Type.Object({
  ...placed,
  ...totalPair,
  total_over_delta: Delta('the Over points (a main-line move)'),
  total_over_money_delta: Delta('the Over price'),
  total_under_delta: Delta('the Under points (a main-line move)'),
  total_under_money_delta: Delta('the Under price'),
  format: Format,
  extended_totals: Type.Array(ExtendedTotalSchema, { description: 'the book’s alternate totals' }),
});

export const TeamTotalSchema = Type.Object({
  ...placed,
  total_over_away: Num('points of the away team’s Over'),
  total_over_away_money: Num('its price'),
  total_under_away: Num('points of the away team’s Under'),
  total_under_away_money: Num('its price'),
  total_over_home: Num('points of the home team’s Over'),
  total_over_home_money: Num('its price'),
  total_under_home: Num('points of the home team’s Under'),
  total_under_home_money: Num('its price'),
  date_updated: Updated,
  format: Format,
});

export const LineSetSchema = Type.Object({
  line_id: Type.Integer({
    description: 'stable id of this book’s lines in this period of the event; 0 when the book has none there',
  }),
  affiliate_id: Type.Integer(),
  period_id: Type.Integer(),
  period_description: Type.String(),
  affiliate: V1AffiliateSchema,
  moneyline: MoneylineSchema,
  spread: SpreadSchema,
  total: TotalSchema,
});

/** The message's data: where the set belongs, then the line set exactly as /api/v1/events/{id}/lines/{lineId} serves it. */
export const LineDataSchema = Type.Object({
  event_id: Type.String(),
  sport_id: Type.Integer(),
  ...LineSetSchema.properties,
});

export const V1ScoreSchema = Type.Object({
  event_id: Type.String(),
  event_status: Type.String(),
  score_away: Type.Integer(),
  score_home: Type.Integer(),
  winner_away: Type.Integer(),
  winner_home: Type.Integer(),
  score_away_by_period: Type.Array(Type.Integer()),
  score_home_by_period: Type.Array(Type.Integer()),
  venue_name: Type.String(),
  venue_location: Type.String(),
  game_clock: Type.Integer(),
  display_clock: Type.String(),
  game_period: Type.Integer(),
  broadcast: Type.String(),
  event_status_detail: Type.String(),
  updated_at: Type.String(),
});

/** The V1 score repeats the V2 one field for field: both are tied to the domain's Score. */
const _v1Score: Tie<Score, typeof V1ScoreSchema> = true;

export const V1TeamSchema = Type.Object({
  team_id: Type.Integer({ description: 'the book’s id of the team; use teams_normalized instead' }),
  team_normalized_id: Type.Integer(),
  name: Type.String(),
  is_away: Type.Boolean(),
  is_home: Type.Boolean(),
});

export const V1NormalizedTeamSchema = Type.Object({
  team_id: Type.Integer(),
  name: Type.String(),
  mascot: Type.String(),
  abbreviation: Type.String(),
  ranking: Type.Integer({ description: '0: unranked' }),
  record: Type.String(),
  is_away: Type.Boolean(),
  is_home: Type.Boolean(),
});

export const V1ScheduleSchema = Type.Object({
  season_type: Type.String(),
  season_year: Type.Integer(),
  event_name: Type.String(),
  attendance: Type.Integer({ description: '0 while unknown' }),
});

export const PeriodLineSetsSchema = Type.Record(Type.String(), LineSetSchema, {
  description: 'keyed by period name: period_full_game, period_first_half … period_live_full_game',
});

export const V1EventSchema = Type.Object({
  event_id: Type.String(),
  event_uuid: Type.String(),
  sport_id: Type.Integer(),
  event_date: Type.String(),
  rotation_number_away: Type.Optional(Type.Integer()),
  rotation_number_home: Type.Optional(Type.Integer()),
  score: Type.Optional(V1ScoreSchema),
  teams: Type.Array(V1TeamSchema),
  teams_normalized: Type.Array(V1NormalizedTeamSchema),
  schedule: V1ScheduleSchema,
  lines: Type.Record(Type.String(), LineSetSchema, {
    description: 'full-game line sets keyed by affiliate id',
  }),
  line_periods: Type.Optional(
    Type.Record(Type.String(), PeriodLineSetsSchema, {
      description: 'with include=all_periods: every period’s line set, keyed by affiliate id',
    }),
  ),
});

export const V1EventsEnvelope = Type.Object({
  meta: Type.Object({
    delta_last_id: Type.String({ description: 'integer cursor for /api/v1/sports/{id}/events/delta' }),
  }),
  events: Type.Array(V1EventSchema),
});

/** V1 error bodies always carry `error` (and `message` with the same text). */
export const v1ErrorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  403: ErrorBody,
  404: ErrorBody,
} as const;
