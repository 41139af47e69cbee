import { type Static, Type } from '@sinclair/typebox';
import { type CatalogRecord, type CatalogType, REMOVAL_KEY } from '../../catalog/records.ts';
import { DISCIPLINES, SEASON_TYPE_NAMES } from '../../catalog/sports.ts';
import { StringEnum } from '../../domain/value-sets.ts';
import type { CatalogUpdate } from '../../ledger/updates.ts';

/**
 * The catalog records of POST /admin/v1/ingest (`{kind: 'catalog', record}`), one schema per
 * record type: a record is checked against the schema its `type` names, so a fault names the field
 * (docs/feeds.md). Unknown fields are refused, as in every record.
 */

const Strict = { additionalProperties: false } as const;
const Int = (options = {}) => Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1, ...options });
const Id = () => Int({ minimum: 1 });
const Text = (max = 200) => Type.String({ maxLength: max });
const Name = (max = 200) => Type.String({ minLength: 1, maxLength: max });

const SportSchema = Type.Object(
  {
    type: Type.Literal('sport'),
    sport_id: Id(),
    sport_name: Name(),
    discipline: StringEnum(DISCIPLINES),
    season_type: StringEnum(SEASON_TYPE_NAMES),
    three_way: Type.Boolean(),
    futures_only: Type.Boolean(),
  },
  Strict,
);

const BookSchema = Type.Object(
  {
    type: Type.Literal('book'),
    affiliate_id: Id(),
    affiliate_name: Name(),
    affiliate_url: Text(500),
    status: StringEnum(['healthy', 'unhealthy', 'beta']),
    regions: Type.Array(Name(32), { maxItems: 32 }),
  },
  Strict,
);

const MarketSchema = Type.Object(
  {
    type: Type.Literal('market'),
    id: Id(),
    name: Name(),
    description: Text(500),
    short_description: Text(64),
    line_value_is_participant: Type.Boolean(),
    proposition: Type.Boolean(),
    period_id: Int(),
    live_variant_id: Type.Optional(Id()),
    updated_at: Type.String({ minLength: 10, maxLength: 40, pattern: '^\\d{4}-\\d{2}-\\d{2}' }),
  },
  Strict,
);

const LeagueSchema = Type.Object(
  {
    type: Type.Literal('league'),
    league_key: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.:-]+$' }),
    league_name: Name(),
    sport_ids: Type.Array(Id(), { minItems: 1, maxItems: 64 }),
    team_ids: Type.Array(Id(), { maxItems: 10_000 }),
  },
  Strict,
);

const TeamSchema = Type.Object(
  {
    type: Type.Literal('team'),
    team_id: Id(),
    name: Name(),
    mascot: Text(),
    abbreviation: Text(16),
    conference: Text(),
    division: Text(),
    venue_name: Text(),
    venue_location: Text(),
  },
  Strict,
);

const RosterSchema = Type.Object(
  {
    type: Type.Literal('roster'),
    team_id: Id(),
    players: Type.Array(
      Type.Object(
        {
          player_id: Id(),
          name: Name(),
          first_name: Text(),
          last_name: Text(),
          position: Text(64),
          jersey_number: Text(8),
        },
        Strict,
      ),
      { maxItems: 200 },
    ),
  },
  Strict,
);

const StatsSchema = Type.Object(
  {
    type: Type.Literal('stats'),
    sport_id: Id(),
    stats: Type.Array(
      Type.Object(
        {
          id: Id(),
          name: Type.String({ minLength: 1, maxLength: 64, pattern: '^[A-Za-z0-9_.-]+$' }),
          display_name: Name(),
          abbreviation: Text(16),
          category: Text(64),
          description: Text(500),
          scope: StringEnum(['team', 'player', 'both']),
        },
        Strict,
      ),
      { maxItems: 500 },
    ),
  },
  Strict,
);

const RemovalSchema = Type.Object(
  {
    type: Type.Literal('removal'),
    key: Type.String({ maxLength: 80, pattern: REMOVAL_KEY }),
  },
  Strict,
);

/** Each record type's schema, by the `type` a record names. */
export const CATALOG_SCHEMAS = {
  sport: SportSchema,
  book: BookSchema,
  market: MarketSchema,
  league: LeagueSchema,
  team: TeamSchema,
  roster: RosterSchema,
  stats: StatsSchema,
  removal: RemovalSchema,
} as const satisfies Record<CatalogType, unknown>;

/** The ingest record of the catalog kind: its record is one of the types above. */
export const CatalogRecordSchema = Type.Object(
  {
    kind: Type.Literal('catalog'),
    record: Type.Union(Object.values(CATALOG_SCHEMAS)),
  },
  Strict,
);

// The schemas' static types are the catalog's records: a change to either fails the build here.
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type Holds<T extends true> = T;
export type CatalogRecordsMatch = Holds<Same<Static<(typeof CATALOG_SCHEMAS)[CatalogType]>, CatalogRecord>>;
export type CatalogUpdateMatches = Holds<Same<Static<typeof CatalogRecordSchema>, CatalogUpdate>>;
