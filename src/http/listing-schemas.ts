import { Type } from '@sinclair/typebox';

/**
 * The answers of listing routes (dates, season types, market participants), apart from their
 * routes so that the typed client (packages/client) takes its types from them.
 */

export const DatesSchema = Type.Object({
  dates: Type.Array(Type.Union([Type.String(), Type.Integer()]), {
    description: 'YYYY-MM-DD strings; ISO 8601 strings with format=iso8601; Unix seconds with format=epoch',
  }),
});

export const SeasonTypesSchema = Type.Object({
  season_types: Type.Array(
    Type.Object({
      sport_id: Type.Integer(),
      sport_name: Type.String(),
      season_type_id: Type.Integer(),
      season_type_name: Type.String(),
    }),
  ),
});

export const ParticipantEntrySchema = Type.Object({
  id: Type.Integer({ description: 'the participant id (oddsbase keeps no per-book participant records)' }),
  type: Type.String({ description: 'TYPE_TEAM, TYPE_PLAYER or TYPE_RESULT' }),
  team_id: Type.Optional(Type.Integer({ description: 'on team participants: the team id' })),
  event_id: Type.String(),
  market_id: Type.Integer(),
  period_id: Type.Integer(),
  participant_id: Type.Integer({
    description: 'the canonical id: use it to filter charts',
  }),
  participant_type: Type.String(),
  name: Type.String(),
  lines: Type.Array(Type.String(), {
    description: 'line values this participant has in the market',
  }),
});
