import { type Static, type TSchema, Type } from '@sinclair/typebox';
import { GameTypeSchema, ParticipantTypeSchema, StringEnum } from '../../domain/value-sets.ts';
import { EVENT_STATUSES } from '../../domain/types.ts';
import { CatalogRecordSchema } from './catalog-schemas.ts';
import type {
  BoxScoreUpdate,
  EventUpsert,
  FuturesBoardUpsert,
  FuturesPriceUpdate,
  FuturesSettle,
  PlayUpdate,
  PriceUpdate,
  ScoreUpdate,
  SeasonStatsUpdate,
} from '../../ledger/updates.ts';

/**
 * The records of POST /admin/v1/ingest, one schema per kind: each is the ledger's update of that
 * kind as JSON (src/ledger/updates.ts), so a valid record goes to the ledger as it came. Unknown
 * fields are refused (a misspelt optional field would otherwise be dropped without a word).
 * docs/feeds.md shows an example of each.
 */

const Strict = { additionalProperties: false } as const;
const Int = (options = {}) => Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, ...options });
/** Event ids are kept as given: 1 to 64 characters that a URL path carries as they are. */
const EventId = Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' });
/** An ISO 8601 time with a date, as the ledger's Date.parse reads it. */
const Time = Type.String({ minLength: 10, maxLength: 40, pattern: '^\\d{4}-\\d{2}-\\d{2}' });
const Text = (max = 200) => Type.String({ maxLength: max });

const EventTeamSchema = Type.Object(
  {
    team_id: Int(),
    name: Text(),
    mascot: Text(),
    abbreviation: Text(16),
    record: Text(32),
    is_away: Type.Boolean(),
    is_home: Type.Boolean(),
  },
  Strict,
);

const ScheduleSchema = Type.Object(
  {
    season_type: Text(64),
    season_year: Int(),
    event_name: Text(),
    league_name: Text(),
    game_number: Type.Optional(Int()),
    game_type: Type.Optional(GameTypeSchema),
  },
  Strict,
);

const EventRecordSchema = Type.Object(
  {
    kind: Type.Literal('event'),
    event: Type.Object(
      {
        event_id: EventId,
        sport_id: Int(),
        event_uuid: Text(64),
        event_date: Time,
        rotation_number_away: Type.Optional(Int()),
        rotation_number_home: Type.Optional(Int()),
        /** Index 0 away, index 1 home. */
        teams: Type.Array(EventTeamSchema, { minItems: 2, maxItems: 2 }),
        schedule: ScheduleSchema,
        affiliate_source_ids: Type.Optional(Type.Record(Type.String(), Text())),
      },
      Strict,
    ),
  },
  Strict,
);

const ScoreSchema = Type.Object(
  {
    event_id: EventId,
    event_status: StringEnum(EVENT_STATUSES),
    score_away: Int(),
    score_home: Int(),
    winner_away: Int({ maximum: 1 }),
    winner_home: Int({ maximum: 1 }),
    score_away_by_period: Type.Array(Int(), { maxItems: 64 }),
    score_home_by_period: Type.Array(Int(), { maxItems: 64 }),
    venue_name: Text(),
    venue_location: Text(),
    game_clock: Type.Number({ minimum: 0 }),
    display_clock: Text(32),
    game_period: Int(),
    broadcast: Text(),
    event_status_detail: Text(),
    updated_at: Time,
  },
  Strict,
);

const ScoreRecordSchema = Type.Object(
  {
    kind: Type.Literal('score'),
    event_id: EventId,
    score: ScoreSchema,
    /** Sport-specific live detail; null clears it. */
    live_game_state: Type.Optional(Type.Union([Type.Record(Type.String(), Type.Unknown()), Type.Null()])),
  },
  Strict,
);

const PriceRecordSchema = Type.Object(
  {
    kind: Type.Literal('price'),
    event_id: EventId,
    market_id: Int(),
    period_id: Int(),
    participant_id: Int(),
    participant_type: ParticipantTypeSchema,
    participant_name: Text(),
    /** Spread or total as text; '' for moneylines. */
    line: Text(32),
    affiliate_id: Int(),
    /** American odds; 0.0001 is the off-board sentinel. */
    price: Type.Number(),
    is_main_line: Type.Optional(Type.Boolean()),
    closed: Type.Optional(Type.Boolean()),
    liquidity_usd: Type.Optional(Type.Number({ minimum: 0 })),
    source_id: Type.Optional(Text(128)),
    /** The source's own ids, kept (docs/feeds.md); omitted, the ledger makes them. */
    price_id: Type.Optional(Type.Integer({ minimum: 1, maximum: Number.MAX_SAFE_INTEGER })),
    market_instance_id: Type.Optional(Int({ minimum: 1 })),
    line_id: Type.Optional(Type.String({ pattern: '^[0-9a-f]{32}$' })),
    keep_time: Type.Optional(Type.Boolean()),
  },
  Strict,
);

const PlayRecordSchema = Type.Object(
  {
    kind: Type.Literal('play'),
    event_id: EventId,
    play: Type.Object(
      {
        period: Int(),
        game_clock: Type.Number({ minimum: 0 }),
        display_clock: Text(32),
        description: Text(1000),
        team_id: Type.Union([Int(), Type.Null()]),
        score_away: Int(),
        score_home: Int(),
        players: Type.Array(Int(), { maxItems: 32 }),
        credits: Type.Array(
          Type.Object(
            {
              team_id: Int(),
              player_id: Type.Optional(Int()),
              stat: Text(64),
              n: Type.Number(),
            },
            Strict,
          ),
          { maxItems: 64 },
        ),
        people: Type.Array(Type.Object({ id: Int(), display_name: Text(), position: Text(32) }, Strict), {
          maxItems: 32,
        }),
        /** The source's number of the play: must be the event's next. */
        sequence: Type.Optional(Int({ minimum: 1 })),
        created_at: Type.Optional(Time),
      },
      Strict,
    ),
  },
  Strict,
);

/** A box-score value: a stat id of the event's sport and a number written as text. */
const BoxValueSchema = Type.Object(
  { stat_id: Int({ minimum: 1 }), value: Type.String({ pattern: '^-?[0-9]{1,15}(\\.[0-9]{1,6})?$' }) },
  Strict,
);
const BoxValues = Type.Array(BoxValueSchema, { maxItems: 100 });

const BoxScoreRecordSchema = Type.Object(
  {
    kind: Type.Literal('box_score'),
    event_id: EventId,
    teams: Type.Array(Type.Object({ team_id: Int(), stats: BoxValues }, Strict), { maxItems: 2 }),
    players: Type.Array(
      Type.Object(
        { player_id: Int(), team_id: Int(), display_name: Text(), position: Text(32), stats: BoxValues },
        Strict,
      ),
      { maxItems: 500 },
    ),
    whole: Type.Optional(Type.Boolean()),
  },
  Strict,
);

/** A season's values: more than a game's box (a season counts every stat a sport keeps). */
const SeasonValues = Type.Array(BoxValueSchema, { maxItems: 200 });

const SeasonStatsRecordSchema = Type.Object(
  {
    kind: Type.Literal('season_stats'),
    team_id: Int(),
    year: Int({ minimum: 1900, maximum: 2100 }),
    season_type: Int({ minimum: 1 }),
    stats: SeasonValues,
    players: Type.Array(Type.Object({ player_id: Int(), stats: SeasonValues }, Strict), { maxItems: 200 }),
  },
  Strict,
);

const FuturesBoardRecordSchema = Type.Object(
  {
    kind: Type.Literal('futures_board'),
    board: Type.Object(
      {
        event_id: EventId,
        sport_id: Int(),
        name: Text(),
        season_year: Int(),
        starts_at: Time,
        ends_at: Time,
        markets: Type.Array(
          Type.Object(
            {
              market_id: Int(),
              name: Text(),
              participants: Type.Array(
                Type.Object(
                  { id: Int(), name: Text(), type: ParticipantTypeSchema, team_id: Type.Optional(Int()) },
                  Strict,
                ),
                { maxItems: 1000 },
              ),
            },
            Strict,
          ),
          { minItems: 1, maxItems: 16 },
        ),
      },
      Strict,
    ),
  },
  Strict,
);

const FuturesPriceRecordSchema = Type.Object(
  {
    kind: Type.Literal('futures_price'),
    event_id: EventId,
    market_id: Int(),
    participant_id: Int(),
    affiliate_id: Int(),
    price: Type.Number(),
  },
  Strict,
);

const FuturesSettlementRecordSchema = Type.Object(
  {
    kind: Type.Literal('futures_settlement'),
    event_id: EventId,
    state: StringEnum(['settled', 'void']),
    winner_participant_id: Type.Union([Int(), Type.Null()]),
  },
  Strict,
);

/** Each kind's schema, by the `kind` a record names. */
export const RECORD_SCHEMAS = {
  event: EventRecordSchema,
  score: ScoreRecordSchema,
  price: PriceRecordSchema,
  play: PlayRecordSchema,
  box_score: BoxScoreRecordSchema,
  futures_board: FuturesBoardRecordSchema,
  futures_price: FuturesPriceRecordSchema,
  futures_settlement: FuturesSettlementRecordSchema,
  catalog: CatalogRecordSchema,
  season_stats: SeasonStatsRecordSchema,
} as const satisfies Record<string, TSchema>;

export type RecordKind = keyof typeof RECORD_SCHEMAS;

// Each schema's static type is the ledger's update of its kind: a change to either fails the build here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
type All<T extends readonly boolean[]> = T extends readonly true[] ? true : false;
export type RecordsAreUpdates = Holds<
  All<
    [
      Same<Static<typeof EventRecordSchema>, EventUpsert>,
      Same<Static<typeof ScoreRecordSchema>, ScoreUpdate>,
      Same<Static<typeof PriceRecordSchema>, PriceUpdate>,
      Same<Static<typeof PlayRecordSchema>, PlayUpdate>,
      Same<Static<typeof BoxScoreRecordSchema>, BoxScoreUpdate>,
      Same<Static<typeof FuturesBoardRecordSchema>, FuturesBoardUpsert>,
      Same<Static<typeof FuturesPriceRecordSchema>, FuturesPriceUpdate>,
      Same<Static<typeof FuturesSettlementRecordSchema>, FuturesSettle>,
      Same<Static<typeof SeasonStatsRecordSchema>, SeasonStatsUpdate>,
    ]
  >
>;
