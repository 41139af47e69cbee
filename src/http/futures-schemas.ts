import { Type } from '@sinclair/typebox';
import {
  type FuturesBoardView,
  type FuturesMarketView,
  type FuturesParticipantView,
  type FuturesPrice,
  type FuturesSettlement,
  FUTURES_STATES,
} from '../domain/futures.ts';
import type { Same } from '../domain/shape-tie.ts';
import { PARTICIPANT_TYPES } from '../domain/types.ts';

/**
 * The futures boards' wire shapes, apart from their routes so that the typed client
 * (packages/client) takes its types from them.
 */

export const FuturesPriceSchema = Type.Object({
  affiliate_id: Type.Integer(),
  price: Type.Integer({ description: 'American odds' }),
  price_delta: Type.Number(),
  updated_at: Type.String(),
  closed_at: Type.String({ description: "'' while active; the settlement time once decided" }),
});

export const BoardSchema = Type.Object({
  event_id: Type.String(),
  sport_id: Type.Integer(),
  name: Type.String(),
  season_year: Type.Integer(),
  starts_at: Type.String(),
  ends_at: Type.String(),
  updated_at: Type.String(),
  settlement: Type.Object({
    state: Type.Union(FUTURES_STATES.map((s) => Type.Literal(s))),
    winner_participant_id: Type.Union([Type.Integer(), Type.Null()]),
    settled_at: Type.String(),
  }),
  markets: Type.Array(
    Type.Object({
      market_id: Type.Integer(),
      name: Type.String(),
      participants: Type.Array(
        Type.Object({
          id: Type.Integer(),
          name: Type.String(),
          type: Type.Union(PARTICIPANT_TYPES.map((t) => Type.Literal(t))),
          team_id: Type.Optional(Type.Integer()),
          prices: Type.Record(Type.String(), FuturesPriceSchema, { description: 'keyed by affiliate id' }),
        }),
      ),
    }),
  ),
});

/* One definition per shape: the domain's futures views (src/domain/futures.ts) tied to these schemas. */
type BoardMarket = (typeof BoardSchema.properties.markets)['items'];
const _futuresPrice: Same<FuturesPrice, typeof FuturesPriceSchema> = true;
const _futuresSettlement: Same<FuturesSettlement, typeof BoardSchema.properties.settlement> = true;
const _futuresParticipant: Same<FuturesParticipantView, BoardMarket['properties']['participants']['items']> = true;
const _futuresMarket: Same<FuturesMarketView, BoardMarket> = true;
const _futuresBoard: Same<FuturesBoardView, typeof BoardSchema> = true;

/**
 * A board in the list as existing clients read it: the board, plus `event_date` (its start),
 * `settle_by` (when it is expected to be decided), `schedule.event_name`, and its settlement keyed by
 * market id (every market of a board settles together).
 */
export const ListedBoardSchema = Type.Object({
  ...BoardSchema.properties,
  event_date: Type.String({ description: 'when the competition begins (starts_at)' }),
  settle_by: Type.String({ description: 'when it is expected to be decided (ends_at)' }),
  schedule: Type.Object({ event_name: Type.String(), season_year: Type.Integer() }),
  settlement: Type.Record(Type.String({ description: 'market id' }), BoardSchema.properties.settlement),
});

/** A page of a sport's futures boards. */
export const FuturesListSchema = Type.Object({
  meta: Type.Object({
    sport_id: Type.Integer(),
    count: Type.Integer(),
    total: Type.Integer({ description: 'boards matching the request, every page together' }),
    limit: Type.Integer(),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'null on the last page' }),
  }),
  events: Type.Array(ListedBoardSchema),
});
