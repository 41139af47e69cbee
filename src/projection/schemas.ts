import { type TSchema, Type } from '@sinclair/typebox';
import type { Same, Tie } from '../domain/shape-tie.ts';
import type {
  Affiliate,
  DeltaRow,
  Event,
  EventTeam,
  Line,
  Market,
  MarketDefinition,
  Participant,
  Price,
  Schedule,
  Score,
  Sport,
} from '../domain/types.ts';
import { DeltaRowSchema } from '../domain/delta-row-schema.ts';

/**
 * The wire schemas: one definition gives the OpenAPI document, fastify's serialisers and the
 * per-event serialiser of the snapshot cache. Field names and types follow the spec exactly.
 */

const Str = (description?: string) => Type.String(description ? { description } : {});
const Int = (description?: string) => Type.Integer(description ? { description } : {});

export const ErrorBody = Type.Object(
  {
    message: Type.Optional(Str('human-readable description')),
    error: Type.Optional(Str('set on parameter-validation, rate-limit and entitlement errors')),
  },
  { $id: 'ErrorBody', additionalProperties: true },
);

export const SportSchema = Type.Object({ sport_id: Int(), sport_name: Str() });

export const AffiliateSchema = Type.Object({
  affiliate_id: Int(),
  affiliate_name: Str(),
  affiliate_url: Str(),
  status: Str('healthy, unhealthy or beta; treat other values as unknown'),
  regions: Type.Optional(Type.Array(Str(), { description: 'only with include=regions' })),
});

export const MarketDefinitionSchema = Type.Object({
  id: Int(),
  name: Str(),
  description: Str(),
  short_description: Str(),
  line_value_is_participant: Type.Boolean(),
  proposition: Type.Boolean(),
  period_id: Int(),
  live_variant_id: Type.Optional(Int()),
  updated_at: Str(),
});

export const EventTeamSchema = Type.Object({
  team_id: Int(),
  name: Str(),
  mascot: Str(),
  abbreviation: Str(),
  record: Str(),
  is_away: Type.Boolean(),
  is_home: Type.Boolean(),
});

export const ScheduleSchema = Type.Object({
  season_type: Str(),
  season_year: Int(),
  event_name: Str(),
  league_name: Str(),
  game_number: Type.Optional(Int()),
  game_type: Type.Optional(Str()),
});

export const ScoreSchema = Type.Object({
  event_id: Str(),
  event_status: Str(),
  score_away: Int(),
  score_home: Int(),
  winner_away: Int(),
  winner_home: Int(),
  score_away_by_period: Type.Array(Int()),
  score_home_by_period: Type.Array(Int()),
  venue_name: Str(),
  venue_location: Str(),
  game_clock: Int(),
  display_clock: Str(),
  game_period: Int(),
  broadcast: Str(),
  event_status_detail: Str(),
  updated_at: Str(),
});

export const PriceSchema = Type.Object({
  id: Str('numeric string'),
  price: Type.Number({ description: 'American odds; 0.0001 = off the board' }),
  is_main_line: Type.Boolean(),
  updated_at: Str(),
  price_delta: Type.Optional(Type.Number({ description: 'with include=price_delta' })),
  closed_at: Type.Optional(Str()),
  liquidity_usd: Type.Optional(Type.Number()),
  source_id: Type.Optional(Str()),
});

export const LineSchema = Type.Object({
  id: Str('32-character hex'),
  value: Str('spread or total; empty for moneyline'),
  prices: Type.Record(Type.String(), PriceSchema, {
    description: 'keyed by affiliate id',
  }),
});

export const ParticipantSchema = Type.Object({
  id: Int(),
  type: Str('TYPE_TEAM, TYPE_PLAYER or TYPE_RESULT'),
  name: Str(),
  lines: Type.Array(LineSchema),
});

export const MarketSchema = Type.Object({
  id: Int(),
  market_id: Int(),
  period_id: Int(),
  name: Str(),
  market_description: Str(),
  participants: Type.Array(ParticipantSchema),
});

export const EventSchema = Type.Object({
  event_id: Str(),
  sport_id: Int(),
  event_uuid: Str(),
  event_date: Str(),
  rotation_number_away: Type.Optional(Int()),
  rotation_number_home: Type.Optional(Int()),
  score: Type.Optional(ScoreSchema),
  teams: Type.Array(EventTeamSchema),
  schedule: ScheduleSchema,
  markets: Type.Array(MarketSchema),
  affiliate_source_ids: Type.Optional(Type.Record(Type.String(), Type.String())),
  live_game_state: Type.Optional(Type.Object({}, { additionalProperties: true })),
});

export const EventsEnvelope = Type.Object({
  meta: Type.Object({
    delta_last_id: Str('integer cursor for /api/v2/markets/delta'),
  }),
  events: Type.Array(EventSchema),
});

export { DeltaRowSchema };

export const ConferenceSchema = Type.Object({
  conference_id: Int(),
  sport_id: Int(),
  name: Str(),
});
export const DivisionSchema = Type.Object({
  division_id: Int(),
  conference_id: Int(),
  sport_id: Int(),
  name: Str(),
});

export const SportTeamSchema = Type.Object({
  team_id: Int(),
  name: Str(),
  mascot: Str(),
  abbreviation: Str(),
  record: Str(),
  conference: ConferenceSchema,
  division: DivisionSchema,
});

/** Responses keyed by a dynamic id (sport id) are documented as maps. */
export const keyed = (value: TSchema) => Type.Record(Type.String(), value);

/** Every authenticated route documents the key header and the error bodies it can return. */
export const errorResponses = {
  400: ErrorBody,
  401: ErrorBody,
  404: ErrorBody,
} as const;

/** Team detail (spec): conference and division as names, not the sport listing's objects. */
export const TeamDetailSchema = Type.Object({
  team_id: Int(),
  name: Str(),
  abbreviation: Str(),
  mascot: Str(),
  sport_id: Int('the sport id of the team’s home league'),
  conference: Str(),
  division: Str(),
});

export const RosterPlayerSchema = Type.Object({
  player_id: Int('the participant id of the player’s prop markets'),
  name: Str(),
  position: Str(),
  jersey_number: Str(),
  team_id: Int(),
});

/** The single-player record (fields not shown in the spec: docs/spec-gaps.md). */
export const PlayerRecordSchema = Type.Object({
  player_id: Int(),
  name: Str(),
  first_name: Str(),
  last_name: Str(),
  position: Str(),
  jersey_number: Str(),
  team_id: Int(),
  team: Type.Object({ team_id: Int(), name: Str(), abbreviation: Str() }),
  sport_id: Int(),
});

/*
 * One definition per shape: the domain types (src/domain/types.ts) cannot be `Static<>` of these
 * schemas (domain imports neither projection nor http), so each pair is tied here at compile time.
 * `Same`: keys, optional keys and value types agree both ways. `Tie`: keys and optional keys agree
 * and the domain type is narrower (a string union where the schema documents a string).
 */
const _eventTeam: Same<EventTeam, typeof EventTeamSchema> = true;
const _schedule: Tie<Schedule, typeof ScheduleSchema> = true;
const _score: Tie<Score, typeof ScoreSchema> = true;
const _price: Same<Price, typeof PriceSchema> = true;
const _line: Same<Line, typeof LineSchema> = true;
const _participant: Tie<Participant, typeof ParticipantSchema> = true;
const _market: Tie<Market, typeof MarketSchema> = true;
const _event: Tie<Event, typeof EventSchema> = true;
const _deltaRow: Tie<DeltaRow, typeof DeltaRowSchema> = true;
const _marketDefinition: Same<MarketDefinition, typeof MarketDefinitionSchema> = true;
const _sport: Same<Sport, typeof SportSchema> = true;
/** Served without `regions` unless include=regions asks for them. */
const _affiliate: Tie<Omit<Affiliate, 'regions'> & Partial<Pick<Affiliate, 'regions'>>, typeof AffiliateSchema> = true;
