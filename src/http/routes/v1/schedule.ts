import { createHash } from 'node:crypto';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { type Static, Type } from '@sinclair/typebox';
import type { FastifyInstance } from 'fastify';
import type { EventState } from '../../../board/event-state.ts';
import { SEASON_TYPES } from '../../../catalog/sports.ts';
import { badRequest, quote } from '../../../projection/errors.ts';
import { eventStatus } from '../../../projection/event-query.ts';
import { parseDate, parseInteger, parseSportId } from '../../../projection/params.ts';
import { callerOf, gateDate, historyFloorOf, type V1Deps } from '../../route-kit.ts';
import type { Catalog } from '../../../catalog/catalog.ts';
import { normalizedTeams } from '../../../projection/v1-event.ts';
import { v1ErrorResponses } from '../../../projection/v1-schemas.ts';
import { SchedulePageSchema, ScheduleRowSchema } from '../../schedule-schemas.ts';
import {
  dateParam,
  enumParam,
  intParam,
  intPathParam,
  limitParam,
  queryParam,
} from '../../../projection/param-schemas.ts';

const SCHEDULE_LIMIT_DEFAULT = 50;
const SCHEDULE_LIMIT_MAX = 500;
const DAY_MS = 86_400_000;

const seasonTypeIds: ReadonlyMap<string, number> = new Map(SEASON_TYPES.map((t) => [t.name, t.season_type_id]));

type ScheduleRow = Static<typeof ScheduleRowSchema>;

/** A stable integer for an event id: 52 bits of its MD5, so it is the same on every node and start. */
const integerId = (eventId: string): number =>
  Number.parseInt(createHash('md5').update(eventId).digest('hex').slice(0, 13), 16);

/** A schedule row; `catalog` the current one, whose team records give the conferences. */
function row(state: EventState, catalog: Pick<Catalog, 'team'>): ScheduleRow {
  const { info } = state;
  const [away, home] = info.teams;
  const score = info.score;
  const conference = (t: { team_id: number } | undefined) => (t && catalog.team(t.team_id)?.conference) || undefined;
  return {
    id: integerId(info.event_id),
    event_id: info.event_id,
    event_uuid: info.event_uuid,
    sport_id: info.sport_id,
    event_date: info.event_date,
    event_name: info.schedule.event_name,
    league_name: info.schedule.league_name,
    season_type: info.schedule.season_type,
    season_type_id: seasonTypeIds.get(info.schedule.season_type) ?? 0,
    season_year: info.schedule.season_year,
    event_status: eventStatus(state),
    away_team_id: away?.team_id ?? 0,
    away_team: away?.name ?? '',
    home_team_id: home?.team_id ?? 0,
    home_team: home?.name ?? '',
    venue_name: info.score?.venue_name ?? '',
    venue_location: info.score?.venue_location ?? '',
    broadcast: info.score?.broadcast ?? '',
    date_event: info.event_date,
    neutral_site: false,
    conference_competition: conference(away) !== undefined && conference(away) === conference(home),
    away_score: score?.score_away ?? 0,
    home_score: score?.score_home ?? 0,
    event_location: score?.venue_location ?? '',
    updated_at: score?.updated_at ?? info.event_date,
    event_status_detail: score?.event_status_detail ?? '',
    attendance: 0,
    teams_normalized: normalizedTeams(info),
  };
}

/** The season schedule of a sport, paged by the last event_uuid a client saw. */
export async function v1ScheduleRoutes(fastify: FastifyInstance, deps: V1Deps): Promise<void> {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  app.get(
    '/sports/:sportID/schedule',
    {
      schema: {
        summary: 'V1: the schedule of a sport',
        description:
          'Events ordered by start (then event_id) from the day `from`: forwards with sort=asc, backwards from ' +
          'the end of that day with sort=desc. Page with last_event_uuid = the event_uuid of the last row received.',
        tags: ['v1'],
        params: Type.Object({ sportID: intPathParam() }),
        querystring: Type.Object(
          {
            from: dateParam('YYYY-MM-DD, default today (UTC)'),
            limit: limitParam('rows', SCHEDULE_LIMIT_DEFAULT, SCHEDULE_LIMIT_MAX),
            sort: enumParam('asc (the default) or desc', ['asc', 'desc'], { default: 'asc' }),
            season_year: intParam('only this season year', 1900, 2200),
            season_type_id: intParam(
              'only this season type (1 preseason, 2 regular season, 3 postseason, 4 special)',
              1,
              SEASON_TYPES.length,
            ),
            team_id: intParam('only events of this team (normalized team id)', 1, 999_999_999),
            last_event_uuid: queryParam('continue after the row with this event_uuid'),
          },
          { additionalProperties: true },
        ),
        response: { 200: SchedulePageSchema, ...v1ErrorResponses },
      },
    },
    async (request, reply) => {
      const sportId = parseSportId(deps.catalog, request.params.sportID);
      const q = request.query;
      const named = q.from !== undefined && q.from !== '';
      const fromMs = named ? parseDate(q.from!) : Math.floor(Date.now() / DAY_MS) * DAY_MS;
      if (named) gateDate(deps, request, fromMs);
      const limit = parseInteger('limit', q.limit, 1, SCHEDULE_LIMIT_MAX) ?? SCHEDULE_LIMIT_DEFAULT;
      const sort = (q.sort ?? 'asc').trim().toLowerCase() || 'asc';
      if (sort !== 'asc' && sort !== 'desc') throw badRequest(`sort must be asc or desc, got '${quote(q.sort!)}'`);
      const year = parseInteger('season_year', q.season_year, 1900, 2200);
      const seasonType = parseInteger('season_type_id', q.season_type_id, 1, SEASON_TYPES.length);
      const teamId = parseInteger('team_id', q.team_id, 1, 999_999_999);
      const floor = historyFloorOf(deps, request) ?? Number.NEGATIVE_INFINITY;

      const { view } = callerOf(deps, request);
      const keep = (e: EventState) =>
        e.startMs >= floor &&
        (sort === 'asc' ? e.startMs >= fromMs : e.startMs < fromMs + DAY_MS) &&
        (year === undefined || e.info.schedule.season_year === year) &&
        (seasonType === undefined || seasonTypeIds.get(e.info.schedule.season_type) === seasonType) &&
        (teamId === undefined || e.info.teams.some((t) => t.team_id === teamId));
      const ordered = view.eventsOfSport(sportId).filter(keep);
      if (sort === 'desc') ordered.reverse();
      let start = 0;
      if (q.last_event_uuid !== undefined && q.last_event_uuid !== '') {
        const at = ordered.findIndex((e) => e.info.event_uuid === q.last_event_uuid);
        if (at < 0) {
          throw badRequest(
            `last_event_uuid '${quote(q.last_event_uuid)}' is not an event of this schedule; ` +
              'pass the event_uuid of the last row of the previous page with the same parameters',
          );
        }
        start = at + 1;
      }
      const schedules = ordered.slice(start, start + limit).map((state) => row(state, deps.catalog));
      // One events point per row: a row carries no score object and no prices.
      reply.meter(schedules.length);
      return { schedules };
    },
  );
}
