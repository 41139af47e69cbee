import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, type TObject, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import { coverageOf, type PlanScope } from '../../../access/plan-scope.ts';
import type { BoardView } from '../../../board/board-view.ts';
import type { EventState, MarketState } from '../../../board/event-state.ts';
import type { PriceDetail } from '../../../changelog/change.ts';
import type { DeltaRow } from '../../../domain/types.ts';
import { badRequest, notFound, quote } from '../../../projection/errors.ts';
import { parseInclude, parseInteger, parseIntList } from '../../../projection/params.ts';
import { callerOf, eventById, type RouteDeps, type V1Deps } from '../../route-kit.ts';
import {
  includeParam,
  intListParam,
  intPathParam,
  limitParam,
  textListParam,
} from '../../../projection/param-schemas.ts';
import { lineScope } from '../../../projection/v1-event.ts';
import {
  booksOf,
  coveredMarkets,
  coversMarket,
  currentLinePrices,
  type EventLines,
  eventLines,
  type Family,
  type LinePrice,
  type LineSet,
  LineSetBuilder,
  FULL_GAME,
  V1_PERIODS,
  type V1Period,
  v1PeriodOf,
} from '../../../projection/v1-line-sets.ts';
import { LineSetSchema, v1ErrorResponses } from '../../../projection/v1-schemas.ts';
import {
  MoneylineFamilySchema,
  SpreadFamilySchema,
  TeamTotalFamilySchema,
  TotalFamilySchema,
} from '../../line-family-schemas.ts';
import { bestLine, checkPeriodInPlan, parsePeriod, periodParam } from '../v2/best-line.ts';
import { BestLineSchema } from '../../best-line-schema.ts';

/** Line history: the newest entries kept per response, and the rows one history replays at most. */
const HISTORY_LIMIT_DEFAULT = 1000;
const HISTORY_LIMIT_MAX = 5000;
const HISTORY_MAX_ROWS = 100_000;
const HISTORY_PAGE = 5000;
const MAX_BEST_EVENTS = 50;

/** Where a line id lives on its event: the period and the book. */
function findLine(lines: EventLines, lineId: number): { period: V1Period; book: number } | undefined {
  for (const [period, ids] of lines.lineIds) {
    for (const [book, id] of ids) if (id === lineId) return { period, book };
  }
  return undefined;
}

function parseLineId(raw: string): number {
  if (!/^\d{1,15}$/.test(raw)) throw badRequest(`lineID must be an integer, got '${quote(raw)}'`);
  return Number(raw);
}

/**
 * The event, period and book of a line id, as the caller's view holds them, or undefined. A line id is
 * a price id (the smallest of the book's prices in that period), so its first recorded row names the
 * event.
 */
async function resolveLine(deps: RouteDeps, view: BoardView, lineId: number) {
  const [first] = await deps.history.firstRows([lineId], view.head);
  const row = first && (JSON.parse(first.payload) as DeltaRow);
  const detail = first && (JSON.parse(first.detail ?? '{}') as PriceDetail);
  const state = row && view.getEvent(row.event_id);
  const period = row && detail && v1PeriodOf({ market_id: row.market_id, period_id: detail.period_id });
  const lines = state && eventLines(state);
  if (!state || !period || !lines || lines.lineIds.get(period)?.get(row.affiliate_id) !== lineId) return undefined;
  return { state, lines, period, book: row.affiliate_id };
}

/** One family's object as a line set shows it, built from a period's markets, with its period. */
function familyEntry(
  builder: LineSetBuilder,
  family: Family,
  m: MarketState | undefined,
  book: number,
  lineId: number,
  period: V1Period,
) {
  const at = { period_id: period.named.periodId, period_description: period.description };
  switch (family) {
    case 'moneyline':
      return { ...builder.moneyline(m, book, lineId), ...at };
    case 'spread':
      return { ...builder.spread(m, book, lineId), ...at };
    case 'total':
      return { ...builder.total(m, book, lineId), ...at };
    case 'team_total':
      return { ...builder.teamTotal(m, book, lineId), ...at };
  }
}

/**
 * The history of one family of a book's line in one period, newest first: the family's object as it
 * stood after each moment a price of it changed (rows written at the same time count as one moment),
 * replayed from the recorded rows. Every number is the recorded V2 price or line of that moment.
 */
async function familyHistory(
  deps: RouteDeps,
  view: BoardView,
  scope: PlanScope,
  state: EventState,
  market: MarketState | undefined,
  family: Family,
  book: number,
  lineId: number,
  period: V1Period,
  limit: number,
): Promise<unknown[]> {
  if (!market || !coversMarket(lineScope(scope, undefined), market) || !scope.coversBook(book)) return [];
  const priceIds: number[] = [];
  for (const part of market.participants.values()) {
    for (const line of part.lines.values()) {
      const p = line.prices.get(book);
      if (p) priceIds.push(p.id);
    }
  }
  // Newest first, a page at a time, each below the last row read.
  const rows = [];
  let uptoId = view.head;
  while (rows.length < HISTORY_MAX_ROWS) {
    const page = await deps.history.rows({ priceIds, uptoId, limit: HISTORY_PAGE, coverage: coverageOf(scope) });
    rows.push(...page);
    if (page.length < HISTORY_PAGE) break;
    uptoId = page[page.length - 1]!.id - 1;
  }
  const moments = rows.reverse().map((r) => {
    const row = JSON.parse(r.payload) as DeltaRow;
    const detail = JSON.parse(r.detail ?? '{}') as PriceDetail;
    const price: LinePrice = {
      price: Number(row.price),
      price_delta: detail.price_delta,
      is_main_line: row.is_main_line,
      updated_at: row.updated_at,
    };
    if (detail.moved_from !== undefined) price.moved_from = detail.moved_from;
    return { priceId: r.price_id, price };
  });
  const now = new Map<number, LinePrice>();
  const builder = new LineSetBuilder(state, deps.catalog, (p) => now.get(p.id));
  const entries: unknown[] = [];
  for (const [i, { priceId, price }] of moments.entries()) {
    now.set(priceId, price);
    if (moments[i + 1]?.price.updated_at === price.updated_at) continue;
    entries.push(familyEntry(builder, family, market, book, lineId, period));
  }
  return entries.reverse().slice(0, limit);
}

const FAMILIES: { path: string; family: Family; list: string; response: TObject }[] = [
  { path: 'moneyline', family: 'moneyline', list: 'moneylines', response: MoneylineFamilySchema },
  { path: 'spread', family: 'spread', list: 'spreads', response: SpreadFamilySchema },
  { path: 'total', family: 'total', list: 'totals', response: TotalFamilySchema },
  { path: 'team_total', family: 'team_total', list: 'team_totals', response: TeamTotalFamilySchema },
];

/** The line routes: an event's line sets, one line set by id, a line's history per family, best lines. */
export async function v1LineRoutes(fastify: FastifyInstance, deps: V1Deps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const tags = ['v1'];

  app.get(
    '/events/:eventID/lines',
    {
      schema: {
        summary: 'V1: every line set of an event (one per book and period)',
        description: 'Ordered by period (full game first, live full game last), then affiliate id.',
        tags,
        params: Type.Object({ eventID: Type.String() }),
        querystring: Type.Object(
          { affiliate_ids: intListParam('comma-separated affiliate ids; default every book of the plan') },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({ event_id: Type.String(), lines: Type.Array(LineSetSchema) }),
          ...v1ErrorResponses,
        },
      },
    },
    async (request, reply) => {
      const eventId = request.params.eventID;
      const { scope, view } = callerOf(deps, request);
      const state = view.getEvent(eventId);
      if (!state) throw notFound('event', eventId);
      const f = lineScope(scope, request.query.affiliate_ids);
      const lines = eventLines(state);
      const builder = new LineSetBuilder(state, deps.catalog);
      const out: LineSet[] = [];
      for (const period of V1_PERIODS) {
        const markets = lines.markets.get(period);
        const covered = coveredMarkets(markets, f);
        for (const book of booksOf(markets, f, currentLinePrices)) {
          out.push(builder.lineSet(period, covered, book, lines.lineIds.get(period)!.get(book)!));
        }
      }
      reply.meter(builder.prices);
      return { event_id: eventId, lines: out };
    },
  );

  app.get(
    '/events/:eventID/lines/:lineID',
    {
      schema: {
        summary: 'V1: one line set of an event by its line id',
        tags,
        params: Type.Object({ eventID: Type.String(), lineID: intPathParam('a line id (a price id)') }),
        response: { 200: LineSetSchema, ...v1ErrorResponses },
      },
    },
    async (request, reply) => {
      const { eventID: eventId, lineID } = request.params;
      const lineId = parseLineId(lineID);
      const { scope, view } = callerOf(deps, request);
      const state = view.getEvent(eventId);
      if (!state) throw notFound('event', eventId);
      const lines = eventLines(state);
      const at = findLine(lines, lineId);
      if (!at) throw notFound(`line ${lineId} of event`, eventId);
      const builder = new LineSetBuilder(state, deps.catalog);
      const f = lineScope(scope, undefined);
      const covered = f.books && !f.books.has(at.book) ? new Map() : coveredMarkets(lines.markets.get(at.period), f);
      const set = builder.lineSet(at.period, covered, at.book, lineId);
      reply.meter(builder.prices);
      return set;
    },
  );

  for (const { path, family, list, response } of FAMILIES) {
    app.get(
      `/lines/:lineID/${path}`,
      {
        schema: {
          summary: `V1: the ${path.replace('_', ' ')} history of a line, or an event's current ${path.replace('_', ' ')}s`,
          description:
            `With a line id, {${list}: [...]}: the book's ${path.replace('_', ' ')} in the line's period after each ` +
            `change, newest first; with include=all_periods, {${path}_periods: {period_full_game: [...], ...}}: every ` +
            'period of the same book and event. With an event id (as the published OpenAPI passes), the same ' +
            'envelopes holding the current object of every book that prices it, by affiliate id (full game, or ' +
            'every period with include=all_periods). Each entry costs one data point.',
          tags,
          params: Type.Object({ lineID: Type.String({ description: 'a line id, or an event id' }) }),
          querystring: Type.Object(
            {
              include: includeParam('all_periods: every period of the book (line id) or of the event (event id)', [
                'all_periods',
              ]),
              limit: limitParam('newest entries per list', HISTORY_LIMIT_DEFAULT, HISTORY_LIMIT_MAX),
              affiliate_ids: intListParam(
                'with an event id: comma-separated affiliate ids; default every book of the plan',
              ),
            },
            { additionalProperties: true },
          ),
          response: { 200: response, ...v1ErrorResponses },
        },
      },
      async (request, reply) => {
        const raw = request.params.lineID;
        const q = request.query;
        const allPeriods = parseInclude(q.include, ['all_periods']).has('all_periods');
        const limit = parseInteger('limit', q.limit, 1, HISTORY_LIMIT_MAX) ?? HISTORY_LIMIT_DEFAULT;
        const { scope, view } = callerOf(deps, request);
        const line = /^\d{1,15}$/.test(raw) ? await resolveLine(deps, view, Number(raw)) : undefined;
        const answer = (lists: Map<V1Period, unknown[]>, points: number) => {
          reply.meter(points);
          if (!allPeriods) return { [list]: [...lists.values()][0] ?? [] };
          return { [`${path}_periods`]: Object.fromEntries([...lists].map(([p, l]) => [p.named.name, l])) };
        };
        if (!line) {
          // Not a line id: an event id, whose current objects of the family are answered per book.
          const state = await eventById(deps, view, raw);
          if (!state) throw notFound('line or event', raw);
          const f = lineScope(scope, q.affiliate_ids);
          const lines = eventLines(state);
          const builder = new LineSetBuilder(state, deps.catalog);
          const lists = new Map<V1Period, unknown[]>();
          for (const p of allPeriods ? V1_PERIODS : [FULL_GAME]) {
            const covered = coveredMarkets(lines.markets.get(p), f);
            const books = booksOf(lines.markets.get(p), f, currentLinePrices, [family]);
            const ids = lines.lineIds.get(p);
            lists.set(
              p,
              books.map((b) => familyEntry(builder, family, covered.get(family), b, ids?.get(b) ?? 0, p)),
            );
          }
          return answer(lists, builder.prices);
        }
        const { state, lines, period, book } = line;
        const lists = new Map<V1Period, unknown[]>();
        let points = 0;
        for (const p of allPeriods ? V1_PERIODS : [period]) {
          const market = lines.markets.get(p)?.get(family);
          const lineId = lines.lineIds.get(p)?.get(book) ?? 0;
          const entries = await familyHistory(deps, view, scope, state, market, family, book, lineId, p, limit);
          lists.set(p, entries);
          points += entries.length;
        }
        return answer(lists, points);
      },
    );
  }

  app.get(
    '/lines/best',
    {
      schema: {
        summary: 'V1: best moneyline, spread and total across books, for several events',
        description:
          'An object keyed by event id (as existing clients read it), each value the body ' +
          '/api/v2/events/{eventID}/best-line answers (the same rules, the same shape), in the order of event_ids.',
        tags,
        querystring: Type.Object(
          {
            event_ids: textListParam(`comma-separated event ids, at most ${MAX_BEST_EVENTS}`, MAX_BEST_EVENTS, {
              required: true,
            }),
            period: periodParam('a period id (0 full game, the default) or a period name (period_full_game …)'),
            affiliate_ids: intListParam('comma-separated affiliate ids; default every book of the plan'),
          },
          { additionalProperties: true },
        ),
        response: { 200: Type.Record(Type.String(), BestLineSchema), ...v1ErrorResponses },
      },
    },
    async (request, reply) => {
      const q = request.query;
      const ids = [
        ...new Set(
          (q.event_ids ?? '')
            .split(',')
            .map((s) => s.trim())
            .filter((s) => s !== ''),
        ),
      ];
      if (ids.length === 0) throw badRequest('event_ids is required: comma-separated event ids');
      if (ids.length > MAX_BEST_EVENTS) {
        throw badRequest(`event_ids accepts at most ${MAX_BEST_EVENTS} ids, got ${ids.length}`);
      }
      const { scope, view } = callerOf(deps, request);
      const period = parsePeriod(q.period);
      checkPeriodInPlan(period, scope);
      const books = scope.booksFor(parseIntList('affiliate_ids', q.affiliate_ids));
      const states = ids.map((id) => {
        const state = view.getEvent(id);
        if (!state) throw notFound('event', id);
        return state;
      });
      let prices = 0;
      const byEvent: Record<string, Static<typeof BestLineSchema>> = {};
      for (const state of states) {
        const best = bestLine(deps.catalog, state, period, scope, books);
        prices += best.prices;
        byEvent[state.info.event_id] = best.body;
      }
      // One odds point per best price returned, as on the V2 route.
      reply.meter(prices);
      return byEvent;
    },
  );
}
