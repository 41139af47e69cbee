import { Type } from '@sinclair/typebox';
import { V1NormalizedTeamSchema } from '../projection/v1-schemas.ts';

/**
 * The answer of /api/v1/sports/{sportID}/schedule, apart from its route so that the typed client
 * (packages/client) takes its type from it.
 */
export const ScheduleRowSchema = Type.Object({
  id: Type.Integer({ description: 'a stable integer id of the event (from its event_id)' }),
  event_id: Type.String(),
  event_uuid: Type.String(),
  sport_id: Type.Integer(),
  event_date: Type.String(),
  event_name: Type.String(),
  league_name: Type.String(),
  season_type: Type.String(),
  season_type_id: Type.Integer(),
  season_year: Type.Integer(),
  event_status: Type.String(),
  away_team_id: Type.Integer(),
  away_team: Type.String(),
  home_team_id: Type.Integer(),
  home_team: Type.String(),
  venue_name: Type.String({ description: 'empty until the game has a score' }),
  venue_location: Type.String(),
  broadcast: Type.String(),
  date_event: Type.String({ description: 'event_date' }),
  neutral_site: Type.Boolean({ description: 'false: no feed says a game is at a neutral site' }),
  conference_competition: Type.Boolean({ description: 'both teams are of the same conference' }),
  away_score: Type.Integer({ description: '0 until the game has a score' }),
  home_score: Type.Integer(),
  event_location: Type.String({ description: 'the venue’s location; empty until the game has a score' }),
  updated_at: Type.String({ description: 'the score’s updated_at; before the game has one, its scheduled start' }),
  event_status_detail: Type.String({ description: 'the score’s; empty before the game has a score' }),
  attendance: Type.Integer({ description: '0: unknown (no feed carries it)' }),
  teams_normalized: Type.Array(V1NormalizedTeamSchema),
});

export const SchedulePageSchema = Type.Object({ schedules: Type.Array(ScheduleRowSchema) });
