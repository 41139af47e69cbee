import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { lowestTierWith, upgradeMessage } from '../../../access/entitlements.ts';
import type { PlanScope } from '../../../access/plan-scope.ts';
import type { EventState, MarketState } from '../../../board/board.ts';
import { type BestRule, bestOffer, type Offer } from '../../../domain/best-line.ts';
import { forbidden, notFound } from '../../errors.ts';
import { parseInteger, parseIntList } from '../../params.ts';
import { callerOf, type RouteDeps } from '../../route-kit.ts';
import { errorResponses } from '../../schemas.ts';

/** Market ids of each kind, prematch and in play, across full game, halves and tennis sets. */
const MONEYLINE = new Set([1, 41, 4, 1008, 1150, 1154, 1153, 1157]);
const SPREAD = new Set([2, 42, 5, 1009, 1151, 1155]);
const TOTAL = new Set([3, 43, 6, 1010, 1152, 1156]);

const BestSchema = Type.Object({
  participant_id: Type.Integer(),
  participant_type: Type.String(),
  participant_name: Type.String(),
  market_id: Type.Integer(),
  line: Type.String(),
  price: Type.Number(),
  affiliate_id: Type.Integer(),
  price_id: Type.String(),
  updated_at: Type.String(),
});

interface Best {
  participant_id: number;
  participant_type: string;
  participant_name: string;
  market_id: number;
  line: string;
  price: number;
  affiliate_id: number;
  price_id: string;
  updated_at: string;
}

type Candidate = Offer & {
  market_id: number;
  price_id: string;
  updated_at: string;
};

/** The best open offer for each participant of one kind of market. */
function bestOf(
  markets: readonly MarketState[],
  affiliates: ReadonlySet<number> | null,
  rule: (participantId: number) => BestRule,
  mainOnly: boolean,
): Best[] {
  const sides = new Map<string, { p: { id: number; type: string; name: string }; offers: Candidate[] }>();
  for (const m of markets) {
    for (const [key, p] of m.participants) {
      let side = sides.get(key);
      if (!side) {
        side = { p: { id: p.id, type: p.type, name: p.name }, offers: [] };
        sides.set(key, side);
      }
      for (const line of p.lines.values()) {
        for (const price of line.prices.values()) {
          if (price.closed_at !== '' || (mainOnly && !price.is_main_line)) continue;
          if (affiliates && !affiliates.has(price.affiliate_id)) continue;
          side.offers.push({
            line: line.value,
            price: price.price,
            affiliate_id: price.affiliate_id,
            market_id: m.market_id,
            price_id: String(price.id),
            updated_at: price.updated_at,
          });
        }
      }
    }
  }
  const out: Best[] = [];
  for (const { p, offers } of sides.values()) {
    const best = bestOffer(offers, rule(p.id)) as Candidate | undefined;
    if (!best) continue;
    out.push({
      participant_id: p.id,
      participant_type: p.type,
      participant_name: p.name,
      market_id: best.market_id,
      line: best.line,
      price: best.price,
      affiliate_id: best.affiliate_id,
      price_id: best.price_id,
      updated_at: best.updated_at,
    });
  }
  return out;
}

/** The best lines of one period among the markets and books the plan covers. */
function bestLine(state: EventState, periodId: number, scope: PlanScope, affiliates: ReadonlySet<number> | null) {
  const of = (ids: Set<number>) =>
    [...state.markets.values()].filter(
      (m) =>
        m.period_id === periodId &&
        ids.has(m.market_id) &&
        scope.coversPeriod(m.period_id) &&
        scope.coversMarket(m.market_id),
    );
  return {
    event_id: state.info.event_id,
    period_id: periodId,
    moneyline: bestOf(of(MONEYLINE), affiliates, () => 'price', false),
    spread: bestOf(of(SPREAD), affiliates, () => 'most_points', true),
    // Total participants are the results Over (0) and Under (1).
    total: bestOf(of(TOTAL), affiliates, (id) => (id === 0 ? 'fewest_points' : 'most_points'), true),
  };
}

export async function bestLineRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v2/events/:eventID/best-line',
    {
      schema: {
        summary: 'Best moneyline, spread and total across books for an event',
        description:
          'For each side, the open price best for the bettor and the book offering it: moneylines by price; ' +
          'spreads and totals among each book’s main lines by points first (most points on a spread, the lowest ' +
          'total for Over, the highest for Under), then price. Off-board prices are never best. Prematch and ' +
          'in-play markets of the period are both considered; closed prices are not.',
        tags: ['markets'],
        params: Type.Object({ eventID: Type.String() }),
        querystring: Type.Object(
          {
            period: Type.Optional(
              Type.String({
                description: 'period id: 0 full game (default), 1 first half, 2 second half, 3/4 tennis sets',
              }),
            ),
            affiliate_ids: Type.Optional(
              Type.String({
                description: 'comma-separated affiliate ids; default all',
              }),
            ),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({
            event_id: Type.String(),
            period_id: Type.Integer(),
            moneyline: Type.Array(BestSchema),
            spread: Type.Array(BestSchema),
            total: Type.Array(BestSchema),
          }),
          ...errorResponses,
        },
      },
    },
    async (request, reply) => {
      const eventId = request.params.eventID;
      const { scope, view } = callerOf(deps, request);
      const state = view.getEvent(eventId);
      if (!state) throw notFound(`event ${eventId}`);
      const q = request.query;
      const period = parseInteger('period', q.period, 0, 99) ?? 0;
      if (!scope.coversPeriod(period)) {
        throw forbidden(
          upgradeMessage(
            `Period ${period} markets`,
            lowestTierWith((e) => e.periods === 'all' || e.periods.includes(period)),
          ),
        );
      }
      const affiliates = scope.booksFor(parseIntList('affiliate_ids', q.affiliate_ids));
      const best = bestLine(state, period, scope, affiliates);
      // One odds point per best price returned.
      reply.meter(best.moneyline.length + best.spread.length + best.total.length);
      return best;
    },
  );
}
