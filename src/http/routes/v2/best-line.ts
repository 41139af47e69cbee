import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { lowestTierWith, upgradeMessage } from '../../../access/entitlements.ts';
import type { PlanScope } from '../../../access/plan-scope.ts';
import { type EventState, type MarketState, participantKey } from '../../../board/event-state.ts';
import type { Catalog } from '../../../catalog/catalog.ts';
import { MONEYLINE, SPREAD, TOTAL } from '../../../catalog/markets.ts';
import { NAMED_PERIODS, periodByName, periodIdsOf, periodOf } from '../../../catalog/periods.ts';
import { type BestRule, bestOffer, type Offer } from '../../../domain/best-line.ts';
import { OFF_BOARD } from '../../../domain/odds.ts';
import { badRequest, forbidden, notFound, quote } from '../../../projection/errors.ts';
import { parseInteger, parseIntList } from '../../../projection/params.ts';
import { callerOf, type RouteDeps } from '../../route-kit.ts';
import { errorResponses } from '../../../projection/schemas.ts';
import { documentedParam, intListParam } from '../../../projection/param-schemas.ts';
import { BestAffiliateSchema, BestLineSchema } from '../../best-line-schema.ts';

type BestAffiliate = Static<typeof BestAffiliateSchema>;
type BestLine = Static<typeof BestLineSchema>;

type Candidate = Offer & {
  market_id: number;
  price_id: string;
  updated_at: string;
};

/** The best open offer of each participant (by participant key) of one kind of market. */
function bestOf(
  markets: readonly MarketState[],
  affiliates: ReadonlySet<number> | null,
  rule: (participantId: number) => BestRule,
  mainOnly: boolean,
): Map<string, Candidate> {
  const sides = new Map<string, { id: number; offers: Candidate[] }>();
  for (const m of markets) {
    for (const [key, p] of m.participants) {
      let side = sides.get(key);
      if (!side) {
        side = { id: p.id, offers: [] };
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
  const out = new Map<string, Candidate>();
  for (const [key, { id, offers }] of sides) {
    const best = bestOffer(offers, rule(id)) as Candidate | undefined;
    if (best) out.set(key, best);
  }
  return out;
}

function affiliateOf(catalog: Catalog, c: Candidate): BestAffiliate {
  return {
    affiliate_id: c.affiliate_id,
    affiliate_name: catalog.book(c.affiliate_id)?.affiliate_name ?? `Affiliate ${c.affiliate_id}`,
    market_id: c.market_id,
    price_id: c.price_id,
    updated_at: c.updated_at,
  };
}

/** Which markets of the event a request compares. */
export interface PeriodSelection {
  periodId: number;
  /** The period ids its markets carry: what the plan must cover. */
  periodIds: number[];
  live: boolean;
  label: string;
  includes(m: MarketState): boolean;
}

/** The `period` parameter: a period id, or the name of a period (parsePeriod). */
export const periodParam = (description: string) =>
  documentedParam(description, {
    oneOf: [
      { type: 'integer', minimum: 0, maximum: 99, default: 0 },
      { type: 'string', enum: NAMED_PERIODS.map((p) => p.name) },
    ],
  });

/**
 * `period`: an id takes every market of that period, prematch and in play; a name (period_full_game,
 * period_live_full_game …) takes the markets of that named period only.
 */
export function parsePeriod(raw: string | undefined): PeriodSelection {
  const text = raw?.trim() ?? '';
  if (text === '' || /^-?\d+$/.test(text)) {
    const id = parseInteger('period', text, 0, 99) ?? 0;
    return { periodId: id, periodIds: [id], live: false, label: `Period ${id}`, includes: (m) => m.period_id === id };
  }
  const named = periodByName(text);
  if (!named) {
    throw badRequest(
      `period must be a period id or one of ${NAMED_PERIODS.map((p) => p.name).join(', ')}, got '${quote(text)}'`,
    );
  }
  return {
    periodId: named.periodId,
    periodIds: periodIdsOf(named),
    live: named.live,
    label: `Period ${named.name}`,
    includes: (m) => periodOf(m.market_id, m.period_id) === named,
  };
}

/**
 * The best lines of one period among the markets and books the plan covers, per side: away and home
 * (the event's teams), the draw (a result side of a moneyline), Over (result 0) and Under (1). A side
 * no book offers carries the off-board sentinel and no affiliate.
 */
export function bestLine(
  catalog: Catalog,
  state: EventState,
  period: PeriodSelection,
  scope: PlanScope,
  affiliates: ReadonlySet<number> | null,
): { body: BestLine; prices: number } {
  const of = (ids: ReadonlySet<number>) =>
    [...state.markets.values()].filter(
      (m) =>
        ids.has(m.market_id) &&
        period.includes(m) &&
        scope.coversPeriod(m.period_id) &&
        scope.coversMarket(m.market_id),
    );
  const moneylineMarkets = of(MONEYLINE);
  const moneyline = bestOf(moneylineMarkets, affiliates, () => 'price', false);
  const spread = bestOf(of(SPREAD), affiliates, () => 'most_points', true);
  const total = bestOf(of(TOTAL), affiliates, (id) => (id === 0 ? 'fewest_points' : 'most_points'), true);

  const [awayTeam, homeTeam] = state.info.teams;
  const away = awayTeam && participantKey('TYPE_TEAM', awayTeam.team_id);
  const home = homeTeam && participantKey('TYPE_TEAM', homeTeam.team_id);
  const drawKey = moneylineMarkets.flatMap((m) => [...m.participants]).find(([, p]) => p.type === 'TYPE_RESULT')?.[0];
  const over = participantKey('TYPE_RESULT', 0);
  const under = participantKey('TYPE_RESULT', 1);

  let prices = 0;
  const pick = (sides: Map<string, Candidate>, key: string | undefined) => {
    const c = key === undefined ? undefined : sides.get(key);
    if (c) prices++;
    return c;
  };
  const price = (c: Candidate | undefined) => c?.price ?? OFF_BOARD;
  const points = (c: Candidate | undefined) => (c ? Number(c.line) : OFF_BOARD);
  const affiliate = <K extends string>(name: K, c: Candidate | undefined) =>
    (c ? { [name]: affiliateOf(catalog, c) } : {}) as Partial<Record<K, BestAffiliate>>;

  const [mlAway, mlHome, mlDraw] = [pick(moneyline, away), pick(moneyline, home), pick(moneyline, drawKey)];
  const [spAway, spHome] = [pick(spread, away), pick(spread, home)];
  const [tOver, tUnder] = [pick(total, over), pick(total, under)];
  const body: BestLine = {
    event_id: state.info.event_id,
    period_id: period.periodId,
    moneyline: {
      moneyline_away: price(mlAway),
      moneyline_home: price(mlHome),
      ...(drawKey !== undefined ? { moneyline_draw: price(mlDraw) } : {}),
      ...affiliate('best_affiliate_away', mlAway),
      ...affiliate('best_affiliate_home', mlHome),
      ...affiliate('best_affiliate_draw', mlDraw),
    },
    spread: {
      point_spread_away: points(spAway),
      point_spread_home: points(spHome),
      point_spread_away_money: price(spAway),
      point_spread_home_money: price(spHome),
      ...affiliate('best_affiliate_away', spAway),
      ...affiliate('best_affiliate_home', spHome),
    },
    total: {
      total_over: points(tOver),
      total_under: points(tUnder),
      total_over_money: price(tOver),
      total_under_money: price(tUnder),
      ...affiliate('best_affiliate_over', tOver),
      ...affiliate('best_affiliate_under', tUnder),
    },
  };
  return { body, prices };
}

/** 403 when the plan covers none of the period's ids, or the period is in play and the plan has no in-play odds. */
export function checkPeriodInPlan(period: PeriodSelection, scope: PlanScope): void {
  const inPlan = (periods: readonly number[] | 'all', liveOdds: boolean) =>
    (periods === 'all' || period.periodIds.some((id) => periods.includes(id))) && (!period.live || liveOdds);
  if (!inPlan(scope.periods ? [...scope.periods] : 'all', scope.liveOdds)) {
    throw forbidden(
      upgradeMessage(
        `${period.label} markets`,
        lowestTierWith((e) => inPlan(e.periods, e.liveOdds)),
        true,
      ),
      { feature: 'periods' },
    );
  }
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
          'total for Over, the highest for Under), then price. Off-board prices are never best. A period id ' +
          'compares the prematch and in-play markets of that period; a period name only those of the named ' +
          'period (period_full_game prematch, period_live_full_game in play). Closed prices are not compared.',
        tags: ['markets'],
        params: Type.Object({ eventID: Type.String() }),
        querystring: Type.Object(
          {
            period: periodParam(
              'a period id (0 full game, the default; 1 first half; 2 second half; 3/4 tennis sets …) or ' +
                `a period name: ${NAMED_PERIODS.map((p) => p.name).join(', ')}`,
            ),
            affiliate_ids: intListParam('comma-separated affiliate ids; default all'),
          },
          { additionalProperties: true },
        ),
        response: { 200: BestLineSchema, ...errorResponses },
      },
    },
    async (request, reply) => {
      const eventId = request.params.eventID;
      const { scope, view } = callerOf(deps, request);
      const state = view.getEvent(eventId);
      if (!state) throw notFound('event', eventId);
      const q = request.query;
      const period = parsePeriod(q.period);
      checkPeriodInPlan(period, scope);
      const affiliates = scope.booksFor(parseIntList('affiliate_ids', q.affiliate_ids));
      const best = bestLine(deps.catalog, state, period, scope, affiliates);
      // One odds point per best price returned.
      reply.meter(best.prices);
      return best.body;
    },
  );
}
