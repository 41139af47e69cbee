import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { EventState } from '../../../board/event-state.ts';
import { withLiveVariants } from '../../../catalog/markets.ts';
import { badRequest, notFound } from '../../../projection/errors.ts';
import {
  MAX_MARKET_IDS,
  dayWindow,
  parseDate,
  parseInteger,
  parseMarketIds,
  parseOffset,
  parseParticipantType,
  parseSportId,
} from '../../../projection/params.ts';
import { callerOf, gateDate, type RouteDeps } from '../../route-kit.ts';
import { errorResponses } from '../../../projection/schemas.ts';
import { PARTICIPANT_TYPES } from '../../../domain/types.ts';
import {
  dateParam,
  enumParam,
  intListParam,
  intParam,
  offsetParam,
  queryParam,
} from '../../../projection/param-schemas.ts';

import { ParticipantEntrySchema } from '../../listing-schemas.ts';

/** Participants of the selected markets: teams, players or result sides, with their canonical ids. */
export async function participantRoutes(fastify: FastifyInstance, deps: RouteDeps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/api/v2/markets/participants',
    {
      config: { free: true },
      schema: {
        summary: 'Teams, players or result sides of markets, for an event or a sport and date',
        description:
          'Select with event_id, or with sport_id and date (and offset). Markets 1 and 2 have TYPE_TEAM ' +
          'participants; for totals ask participant_type=TYPE_RESULT (Over is 0, Under is 1). market_ids 1, 2, 3 ' +
          'bring their live variants as on the event routes.',
        tags: ['markets'],
        querystring: Type.Object(
          {
            market_ids: intListParam('comma-separated market ids, at most 12; default 1,2,3', MAX_MARKET_IDS),
            participant_type: enumParam('TYPE_TEAM, TYPE_PLAYER or TYPE_RESULT', PARTICIPANT_TYPES),
            event_id: queryParam('one event'),
            sport_id: intParam('with date: every event of the sport that day', 0, 1_000_000),
            date: dateParam('YYYY-MM-DD, with sport_id'),
            offset: offsetParam(),
          },
          { additionalProperties: true },
        ),
        response: {
          200: Type.Object({ participants: Type.Array(ParticipantEntrySchema) }),
          ...errorResponses,
        },
      },
    },
    async (request) => {
      const q = request.query;
      const { scope, view } = callerOf(deps, request);
      const marketIds = new Set(scope.marketIdsFor(withLiveVariants(parseMarketIds(q.market_ids) ?? [1, 2, 3])));
      const type = parseParticipantType(q.participant_type);
      let events: EventState[];
      if (q.event_id) {
        const state = view.getEvent(q.event_id);
        if (!state) throw notFound('event', q.event_id);
        events = [state];
      } else if (q.sport_id !== undefined && q.date !== undefined) {
        const sportId = parseSportId(deps.catalog, String(parseInteger('sport_id', q.sport_id, 0, 1_000_000)));
        const dateMs = parseDate(q.date);
        gateDate(deps, request, dateMs);
        const [from, to] = dayWindow(dateMs, parseOffset(q.offset));
        events = view.eventsInWindow(sportId, from, to);
      } else {
        throw badRequest('select events with event_id, or with sport_id and date (YYYY-MM-DD)');
      }
      const participants = [];
      for (const e of events) {
        for (const m of e.markets.values()) {
          if (!marketIds.has(m.market_id) || !scope.coversPeriod(m.period_id)) continue;
          for (const p of m.participants.values()) {
            if (type && p.type !== type) continue;
            // Lines the plan's books price: a participant known only from other books is left out.
            const lines = [...p.lines.values()]
              .filter((l) => [...l.prices.keys()].some((book) => scope.coversBook(book)))
              .map((l) => l.value);
            if (lines.length === 0) continue;
            participants.push({
              id: p.id,
              type: p.type,
              ...(p.type === 'TYPE_TEAM' ? { team_id: p.id } : {}),
              event_id: e.info.event_id,
              market_id: m.market_id,
              period_id: m.period_id,
              participant_id: p.id,
              participant_type: p.type,
              name: p.name,
              lines,
            });
          }
        }
      }
      return { participants };
    },
  );
}
