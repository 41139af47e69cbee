import { Type } from '@sinclair/typebox';
import type { StatDefinition } from '../catalog/stats.ts';
import type { Same } from '../domain/shape-tie.ts';
import type { Play } from '../domain/plays.ts';

/** The Statistics resources' wire shapes (spec: Statistics resources), for the OpenAPI document. */

export const StatDefinitionSchema = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  display_name: Type.String(),
  abbreviation: Type.String(),
  sport_id: Type.Integer(),
  category: Type.String(),
  description: Type.String({ description: 'what the stat counts' }),
});

const StatRef = Type.Object({
  id: Type.Integer(),
  name: Type.String(),
  display_name: Type.String(),
  abbreviation: Type.String(),
  sport_id: Type.Integer(),
});

const Meta = Type.Object({ complete: Type.Boolean(), event_id: Type.String() });

export const TeamGameStatsSchema = Type.Array(
  Type.Object({
    team: Type.Object({
      team_id: Type.Integer(),
      name: Type.String(),
      mascot: Type.String(),
      abbreviation: Type.String(),
      is_away: Type.Boolean(),
      is_home: Type.Boolean(),
    }),
    meta: Meta,
    stats: Type.Array(
      Type.Object({
        team_id: Type.Integer(),
        stat_id: Type.Integer(),
        stat: StatRef,
        event_id: Type.String(),
        value: Type.String(),
      }),
    ),
  }),
);

export const PlayerGameStatsSchema = Type.Array(
  Type.Object({
    player: Type.Object({
      id: Type.Integer(),
      display_name: Type.String(),
      position: Type.String(),
      team_id: Type.Integer(),
      sport_id: Type.Integer(),
      first_name: Type.String(),
      last_name: Type.String(),
      jersey: Type.String({ description: 'the jersey number, as rosters give it (a string: "00" is not 0)' }),
    }),
    meta: Meta,
    stats: Type.Array(Type.Object({ stat: StatRef, value: Type.String() })),
  }),
);

export const PlaySchema = Type.Object({
  event_id: Type.String(),
  sequence: Type.Integer({ description: '1 for the first play of the event, then one more per play' }),
  period: Type.Integer(),
  game_clock: Type.Integer({ description: 'seconds, as the score counts them' }),
  display_clock: Type.String(),
  description: Type.String(),
  team_id: Type.Union([Type.Integer(), Type.Null()]),
  score_away: Type.Integer({ description: 'the score after the play' }),
  score_home: Type.Integer(),
  players: Type.Array(Type.Integer(), { description: 'player ids involved, as player-prop participant ids' }),
  created_at: Type.String(),
});

export const PlaysPageSchema = Type.Object({
  meta: Type.Object({
    event_id: Type.String(),
    count: Type.Integer(),
    last_sequence: Type.Integer({ description: 'the sequence of the event’s latest play (0 before the first)' }),
    next_before_sequence: Type.Union([Type.Integer(), Type.Null()], {
      description: 'before_sequence of the next (older) page; null on the page with play 1',
    }),
  }),
  plays: Type.Array(PlaySchema),
});

const SeasonStatRow = Type.Object({ stat_id: Type.Integer(), name: Type.String(), value: Type.String() });
const SeasonTeam = Type.Object({ team_id: Type.Integer(), name: Type.String() });
const Season = Type.Object({ year: Type.Integer(), season_type: Type.Integer() });

export const TeamSeasonStatsSchema = Type.Array(
  Type.Object({ team: SeasonTeam, season: Season, stats: Type.Array(SeasonStatRow) }),
);

export const PlayerSeasonStatsSchema = Type.Array(
  Type.Object({
    player: Type.Object({ player_id: Type.Integer(), name: Type.String(), position: Type.String() }),
    team: SeasonTeam,
    season: Season,
    stats: Type.Array(
      Type.Object(
        { stat_id: Type.Integer(), name: Type.String(), value: Type.Number() },
        {
          description: 'value is a number (existing clients read one); team season values are strings',
        },
      ),
    ),
  }),
);

/* One definition per shape: the catalog's and the domain's types are tied to their schemas here. */
const _statDefinition: Same<StatDefinition, typeof StatDefinitionSchema> = true;
const _play: Same<Play, typeof PlaySchema> = true;
