import type { Static } from '@sinclair/typebox';
import type {
  AffiliateSchema,
  ConferenceSchema,
  DivisionSchema,
  EventSchema,
  EventsEnvelope as EventsEnvelopeSchema,
  EventTeamSchema,
  LineSchema,
  MarketDefinitionSchema,
  MarketSchema,
  ParticipantSchema,
  PlayerRecordSchema,
  PriceSchema,
  RosterPlayerSchema,
  ScheduleSchema,
  ScoreSchema,
  SportSchema,
  SportTeamSchema,
  TeamDetailSchema,
} from '../../../src/projection/schemas.ts';
import type { DeltaRowSchema } from '../../../src/domain/delta-row-schema.ts';
import type { MarketsDeltaSchema, V1DeltaSchema, V2EventDeltaSchema } from '../../../src/http/delta-schemas.ts';
import type { DatesSchema, ParticipantEntrySchema, SeasonTypesSchema } from '../../../src/http/listing-schemas.ts';
import type {
  ChartPointSchema,
  ChartResponse,
  HistoryResponse,
  HistoryRowSchema,
} from '../../../src/http/history-schemas.ts';
import type { BestLineSchema } from '../../../src/http/best-line-schema.ts';
import type { BoardSchema, FuturesListSchema } from '../../../src/http/futures-schemas.ts';
import type {
  PlayerGameStatsSchema,
  PlayerSeasonStatsSchema,
  PlaySchema,
  PlaysPageSchema,
  StatDefinitionSchema,
  TeamGameStatsSchema,
  TeamSeasonStatsSchema,
} from '../../../src/http/stats-schemas.ts';
import type {
  LineSetSchema,
  MoneylineSchema,
  SpreadSchema,
  TeamTotalSchema,
  TotalSchema,
  V1EventSchema,
  V1EventsEnvelope as V1EventsEnvelopeSchema,
} from '../../../src/projection/v1-schemas.ts';
import type { OpeningLayoutSchema } from '../../../src/http/opening-schema.ts';
import type { SchedulePageSchema, ScheduleRowSchema } from '../../../src/http/schedule-schemas.ts';
import type {
  MoneylineFamilySchema,
  SpreadFamilySchema,
  TeamTotalFamilySchema,
  TotalFamilySchema,
} from '../../../src/http/line-family-schemas.ts';
import type { MarketPriceDataSchema } from '../../../src/stream/message-schemas.ts';
import type { LineDataSchema } from '../../../src/stream/line-frames.ts';

/*
 * The wire shapes, each the Static<> type of the server's own TypeBox schema: one definition, so a
 * change to the server's shape is a compile error in the client, and the built declarations carry
 * the schemas' types to users of the package.
 */

export type Sport = Static<typeof SportSchema>;
export type Affiliate = Static<typeof AffiliateSchema>;
export type MarketDefinition = Static<typeof MarketDefinitionSchema>;
export type EventTeam = Static<typeof EventTeamSchema>;
export type Schedule = Static<typeof ScheduleSchema>;
export type Score = Static<typeof ScoreSchema>;
export type Price = Static<typeof PriceSchema>;
export type Line = Static<typeof LineSchema>;
export type Participant = Static<typeof ParticipantSchema>;
export type Market = Static<typeof MarketSchema>;
export type Event = Static<typeof EventSchema>;
export type EventsEnvelope = Static<typeof EventsEnvelopeSchema>;
export type Conference = Static<typeof ConferenceSchema>;
export type Division = Static<typeof DivisionSchema>;
export type SportTeam = Static<typeof SportTeamSchema>;
export type TeamDetail = Static<typeof TeamDetailSchema>;
export type RosterPlayer = Static<typeof RosterPlayerSchema>;
export type PlayerRecord = Static<typeof PlayerRecordSchema>;

export type DeltaRow = Static<typeof DeltaRowSchema>;
export type MarketsDeltaPage = Static<typeof MarketsDeltaSchema>;
export type EventDeltaPage = Static<typeof V2EventDeltaSchema>;
export type EventDeltaItem = EventDeltaPage['deltas'][number];

export type SportDates = Static<typeof DatesSchema>;
export type SeasonTypes = Static<typeof SeasonTypesSchema>;
export type MarketParticipant = Static<typeof ParticipantEntrySchema>;

export type HistoryRow = Static<typeof HistoryRowSchema>;
export type HistoryPage = Static<typeof HistoryResponse>;
export type ChartPoint = Static<typeof ChartPointSchema>;
export type Chart = Static<typeof ChartResponse>;
export type BestLine = Static<typeof BestLineSchema>;
/** An event's opening prices by market id, then "<participant_id>:<line>", then affiliate id. */
export type OpeningMarkets = Static<typeof OpeningLayoutSchema>;
export type FuturesBoard = Static<typeof BoardSchema>;
export type FuturesPage = Static<typeof FuturesListSchema>;

export type StatDefinition = Static<typeof StatDefinitionSchema>;
export type TeamGameStats = Static<typeof TeamGameStatsSchema>;
export type TeamGameStatsGroup = TeamGameStats[number];
export type PlayerGameStats = Static<typeof PlayerGameStatsSchema>;
export type PlayerGameStatsGroup = PlayerGameStats[number];
export type Play = Static<typeof PlaySchema>;
export type PlaysPage = Static<typeof PlaysPageSchema>;
export type TeamSeasonStats = Static<typeof TeamSeasonStatsSchema>;
export type PlayerSeasonStats = Static<typeof PlayerSeasonStatsSchema>;

export type V1Event = Static<typeof V1EventSchema>;
export type V1EventsEnvelope = Static<typeof V1EventsEnvelopeSchema>;
export type V1LineSet = Static<typeof LineSetSchema>;
export type V1Moneyline = Static<typeof MoneylineSchema>;
export type V1Spread = Static<typeof SpreadSchema>;
export type V1Total = Static<typeof TotalSchema>;
export type V1TeamTotal = Static<typeof TeamTotalSchema>;
export type V1DeltaPage = Static<typeof V1DeltaSchema>;
export type V1ScheduleRow = Static<typeof ScheduleRowSchema>;
export type V1SchedulePage = Static<typeof SchedulePageSchema>;
/** `/api/v1/lines/{id}/moneyline`: `moneylines`, or `moneyline_periods` with include=all_periods. */
export type V1MoneylineFamily = Static<typeof MoneylineFamilySchema>;
export type V1SpreadFamily = Static<typeof SpreadFamilySchema>;
export type V1TotalFamily = Static<typeof TotalFamilySchema>;
export type V1TeamTotalFamily = Static<typeof TeamTotalFamilySchema>;

/** The dedicated stream's `market_price` data, also the multiplexed markets channel's delta data. */
export type MarketPrice = Static<typeof MarketPriceDataSchema>;
/** A V1 stream message's data: the line set as /api/v1/events/{id}/lines/{line_id} answers, placed. */
export type V1LineMessage = Static<typeof LineDataSchema>;

/** The stat-dictionary entry carried by every game-stat row. */
export type StatRef = TeamGameStatsGroup['stats'][number]['stat'];
