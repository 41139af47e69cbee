import { type Query, type Reply, type RequestOptions, seg, Transport, type TransportOptions } from './transport.ts';
import type {
  Affiliate,
  BestLine,
  Chart,
  Conference,
  Division,
  EventDeltaPage,
  EventsEnvelope,
  FuturesBoard,
  FuturesPage,
  HistoryPage,
  MarketDefinition,
  MarketParticipant,
  MarketsDeltaPage,
  OpeningMarkets,
  PlayerGameStats,
  PlayerRecord,
  PlayerSeasonStats,
  PlaysPage,
  RosterPlayer,
  SeasonTypes,
  Sport,
  SportDates,
  SportTeam,
  StatDefinition,
  TeamDetail,
  TeamGameStats,
  TeamSeasonStats,
  V1DeltaPage,
  V1Event,
  V1EventsEnvelope,
  V1LineSet,
  V1MoneylineFamily,
  V1SchedulePage,
  V1SpreadFamily,
  V1TeamTotalFamily,
  V1TotalFamily,
} from './types.ts';

type Ids = readonly number[];
type ParticipantType = 'TYPE_TEAM' | 'TYPE_PLAYER' | 'TYPE_RESULT';

/** The spec's shared event parameters (REST event endpoints, openers, closing). */
export interface EventParams {
  /** At most 12 (spec); the server adds the live variants of 1, 2, 3, 94 and the tennis sets. */
  market_ids?: Ids;
  affiliate_ids?: Ids;
  /** Minutes that shift the day boundary. */
  offset?: number;
  exclude_status?: readonly string[];
  event_status?: readonly string[];
  main_line?: boolean;
  participant_ids?: Ids;
  participant_type?: ParticipantType;
  hide_no_markets?: boolean;
  hide_closed?: boolean;
  /** e.g. ['price_delta']. */
  include?: readonly string[];
}

export interface MarketsDeltaParams {
  /** The integer cursor: an events snapshot's or the previous response's `meta.delta_last_id`. */
  last_id: string;
  sport_id?: number;
  affiliate_ids?: Ids;
  /** Matched literally: include 41, 42, 43 for full-game live prices. */
  market_ids?: Ids;
  event_id?: string;
  /** Default 1000, at most 5000. */
  limit?: number;
}

export interface EventDeltaParams {
  /** A UUID cursor; omitted, the answer is empty and carries the newest cursor. */
  last_id?: string;
  sport_id?: number;
  limit?: number;
}

export interface FuturesParams {
  market_ids?: Ids;
  affiliate_ids?: Ids;
  event_ids?: readonly string[];
  include_settled?: boolean;
  /** Boards per page; follow `meta.next_cursor`. */
  limit?: number;
  cursor?: string;
  date?: string;
  offset?: number;
}

/** The V1 event parameters (events, openers, closing, widgets). */
export interface V1EventParams {
  /** scores, all_periods. */
  include?: readonly string[];
  affiliate_ids?: Ids;
  offset?: number;
}

/** The answer of `/api/v1/lines/{id}/{family}` for each family. */
export interface V1LineFamilies {
  moneyline: V1MoneylineFamily;
  spread: V1SpreadFamily;
  total: V1TotalFamily;
  team_total: V1TeamTotalFamily;
}
export type V1LineFamily = keyof V1LineFamilies;

export type ClientOptions = TransportOptions;

/** One method per route of the V2 and V1 REST interface; each resolves to the body and its headers. */
export class OddsbaseClient {
  readonly transport: Transport;
  /** The line-based (legacy) routes. */
  readonly v1: V1Routes;

  constructor(opts: ClientOptions) {
    this.transport = new Transport(opts);
    this.v1 = new V1Routes(this.transport);
  }

  private get<T>(path: string, query?: Query, opts?: RequestOptions): Promise<Reply<T>> {
    return this.transport.request<T>(path, query, opts);
  }

  // Reference and listing

  sports(opts?: RequestOptions): Promise<Reply<{ sports: Sport[] }>> {
    return this.get('/api/v2/sports', undefined, { ...opts, auth: false });
  }
  affiliates(
    q: { include?: readonly 'regions'[] } = {},
    opts?: RequestOptions,
  ): Promise<Reply<{ affiliates: Affiliate[] }>> {
    return this.get('/api/v2/affiliates', q, { ...opts, auth: false });
  }
  /** The affiliates list under its sportsbooks alias (oddsbase: with a key, free). */
  sportsbooks(
    q: { include?: readonly 'regions'[] } = {},
    opts?: RequestOptions,
  ): Promise<Reply<{ affiliates: Affiliate[] }>> {
    return this.get('/api/v2/sportsbooks', q, opts);
  }
  markets(opts?: RequestOptions): Promise<Reply<MarketDefinition[]>> {
    return this.get('/api/v2/markets', undefined, opts);
  }
  /** Season type ids per sport (shape: oddsbase's, docs/spec-gaps.md). */
  seasonTypes(opts?: RequestOptions): Promise<Reply<SeasonTypes>> {
    return this.get('/api/v2/season_types', undefined, opts);
  }
  /** Dates with events, keyed by sport id. */
  sportDates(
    q: { sport_ids?: Ids; offset?: number; format?: 'iso8601' | 'epoch' } = {},
    opts?: RequestOptions,
  ): Promise<Reply<Record<string, SportDates>>> {
    return this.get('/api/v2/sports/dates', q, opts);
  }
  /** Dates with events of one sport. */
  datesOf(
    sportId: number,
    q: { offset?: number; format?: 'iso8601' | 'epoch' } = {},
    opts?: RequestOptions,
  ): Promise<Reply<SportDates>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/dates`, q, opts);
  }
  /** Event ids of a day, keyed by sport id. */
  eventIdsOn(
    date: string,
    q: { sport_ids?: Ids; offset?: number } = {},
    opts?: RequestOptions,
  ): Promise<Reply<Record<string, string[]>>> {
    return this.get(`/api/v2/sports/events/${seg(date)}`, q, opts);
  }
  /** Market definitions of a day, keyed by sport id. */
  marketsOn(
    date: string,
    q: { sport_ids?: Ids; offset?: number; hide_closed_markets?: boolean } = {},
    opts?: RequestOptions,
  ): Promise<Reply<Record<string, MarketDefinition[]>>> {
    return this.get(`/api/v2/sports/markets/${seg(date)}`, q, opts);
  }
  sportMarketsOn(
    sportId: number,
    date: string,
    q: { offset?: number } = {},
    opts?: RequestOptions,
  ): Promise<Reply<Record<string, MarketDefinition[]>>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/markets/${seg(date)}`, q, opts);
  }
  teams(sportId: number, opts?: RequestOptions): Promise<Reply<{ teams: SportTeam[] }>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/teams`, undefined, opts);
  }
  conferences(sportId: number, opts?: RequestOptions): Promise<Reply<{ conferences: Conference[] }>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/conferences`, undefined, opts);
  }
  divisions(sportId: number, opts?: RequestOptions): Promise<Reply<{ divisions: Division[] }>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/divisions`, undefined, opts);
  }

  // Events

  /** The odds screen's snapshot: `meta.delta_last_id` bootstraps the markets delta. */
  events(sportId: number, date: string, q: EventParams = {}, opts?: RequestOptions): Promise<Reply<EventsEnvelope>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/events/${seg(date)}`, { ...q }, opts);
  }
  event(eventId: string, q: EventParams = {}, opts?: RequestOptions): Promise<Reply<EventsEnvelope>> {
    return this.get(`/api/v2/events/${seg(eventId)}`, { ...q }, opts);
  }
  openers(eventId: string, q: EventParams = {}, opts?: RequestOptions): Promise<Reply<EventsEnvelope>> {
    return this.get(`/api/v2/events/${seg(eventId)}/openers`, { ...q }, opts);
  }
  closing(eventId: string, q: EventParams = {}, opts?: RequestOptions): Promise<Reply<EventsEnvelope>> {
    return this.get(`/api/v2/events/${seg(eventId)}/closing`, { ...q }, opts);
  }
  /** Opening prices of an event's day for a sport: the events snapshot's envelope and parameters. */
  sportOpeners(
    sportId: number,
    date: string,
    q: EventParams = {},
    opts?: RequestOptions,
  ): Promise<Reply<EventsEnvelope>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/openers/${seg(date)}`, { ...q }, opts);
  }
  /** Closing prices of a sport's events on a day (provisional before each start). */
  sportClosing(
    sportId: number,
    date: string,
    q: EventParams = {},
    opts?: RequestOptions,
  ): Promise<Reply<EventsEnvelope>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/closing/${seg(date)}`, { ...q }, opts);
  }
  /** An event's opening prices in the published markets layout (the openers' selection and cost). */
  openingMarkets(eventId: string, q: EventParams = {}, opts?: RequestOptions): Promise<Reply<OpeningMarkets>> {
    return this.get(`/api/v2/events/${seg(eventId)}/markets/opening`, { ...q }, opts);
  }
  eventMarkets(eventId: string, opts?: RequestOptions): Promise<Reply<MarketDefinition[]>> {
    return this.get(`/api/v2/events/${seg(eventId)}/markets`, undefined, opts);
  }
  /** Price-history rows of an event, newest first; no cursor: narrow the request when it hits `limit`. */
  eventHistory(
    eventId: string,
    q: { market_ids?: Ids; affiliate_ids?: Ids; from?: string; to?: string; main_line?: boolean; limit?: number } = {},
    opts?: RequestOptions,
  ): Promise<Reply<HistoryPage>> {
    return this.get(`/api/v2/events/${seg(eventId)}/markets/history`, { ...q }, opts);
  }
  /** Line chart of one market, series keyed by affiliate id, oldest first. */
  chart(
    eventId: string,
    marketId: number,
    q: { participant_id?: number; line?: string; main_line?: boolean; limit?: number; affiliate_ids?: Ids } = {},
    opts?: RequestOptions,
  ): Promise<Reply<Chart>> {
    return this.get(`/api/v2/events/${seg(eventId)}/markets/${seg(marketId)}/history`, { ...q }, opts);
  }
  bestLine(
    eventId: string,
    q: { period?: string | number; affiliate_ids?: Ids } = {},
    opts?: RequestOptions,
  ): Promise<Reply<BestLine>> {
    return this.get(`/api/v2/events/${seg(eventId)}/best-line`, { ...q }, opts);
  }
  /** Plays newest first, up to 500; `before_sequence` pages back. Ultra and above. */
  plays(
    eventId: string,
    q: { limit?: number; before_sequence?: number } = {},
    opts?: RequestOptions,
  ): Promise<Reply<PlaysPage>> {
    return this.get(`/api/v2/events/${seg(eventId)}/plays`, { ...q }, opts);
  }

  // Delta feeds

  marketsDelta(q: MarketsDeltaParams, opts?: RequestOptions): Promise<Reply<MarketsDeltaPage>> {
    return this.get('/api/v2/markets/delta', { ...q }, { ...opts, cursorRoute: true });
  }
  /** Changed events since a UUID cursor; each item's `json` is the full event. */
  eventDelta(q: EventDeltaParams = {}, opts?: RequestOptions): Promise<Reply<EventDeltaPage>> {
    return this.get('/api/v2/delta', { ...q }, { ...opts, cursorRoute: true });
  }
  marketsHistory(
    q: { market_line_price_ids: readonly (string | number)[]; from?: string; to?: string; limit?: number },
    opts?: RequestOptions,
  ): Promise<Reply<HistoryPage>> {
    return this.get('/api/v2/markets/history', { ...q }, opts);
  }
  /** Participants of markets (use `participant_id` from it to filter charts). */
  participants(
    q: {
      market_ids?: Ids;
      participant_type?: ParticipantType;
      event_id?: string;
      sport_id?: number;
      date?: string;
    } = {},
    opts?: RequestOptions,
  ): Promise<Reply<{ participants: MarketParticipant[] }>> {
    return this.get('/api/v2/markets/participants', { ...q }, opts);
  }

  // Statistics, teams, players

  stats(q: { id?: number; sport_id?: number } = {}, opts?: RequestOptions): Promise<Reply<StatDefinition[]>> {
    return this.get('/api/v2/stats', q, opts);
  }
  /** The static sample box score, for schema tests: never poll it. */
  statsSample(
    opts?: RequestOptions,
  ): Promise<Reply<{ event_id: string; team_stats: TeamGameStats; player_stats: PlayerGameStats }>> {
    return this.get('/api/v2/stats/sample', undefined, opts);
  }
  teamGameStats(
    eventId: string,
    q: { stats_ids?: Ids; team_id?: number } = {},
    opts?: RequestOptions,
  ): Promise<Reply<TeamGameStats>> {
    return this.get(`/api/v2/events/${seg(eventId)}/stats`, { ...q }, opts);
  }
  playerGameStats(
    eventId: string,
    q: { stats_ids?: Ids; player_ids?: Ids } = {},
    opts?: RequestOptions,
  ): Promise<Reply<PlayerGameStats>> {
    return this.get(`/api/v2/events/${seg(eventId)}/players/stats`, { ...q }, opts);
  }
  team(teamId: number, opts?: RequestOptions): Promise<Reply<TeamDetail>> {
    return this.get(`/api/v2/teams/${seg(teamId)}`, undefined, opts);
  }
  roster(teamId: number, opts?: RequestOptions): Promise<Reply<{ players: RosterPlayer[] }>> {
    return this.get(`/api/v2/teams/${seg(teamId)}/players`, undefined, opts);
  }
  teamSeasonStats(
    teamId: number,
    q: { stats_ids?: Ids; year?: number; season_type?: number } = {},
    opts?: RequestOptions,
  ): Promise<Reply<TeamSeasonStats>> {
    return this.get(`/api/v2/teams/${seg(teamId)}/stats`, { ...q }, opts);
  }
  playerSeasonStats(
    teamId: number,
    q: { stats_ids?: Ids; player_ids?: Ids; year?: number; season_type?: number } = {},
    opts?: RequestOptions,
  ): Promise<Reply<PlayerSeasonStats>> {
    return this.get(`/api/v2/teams/${seg(teamId)}/players/stats`, { ...q }, opts);
  }
  player(playerId: number, opts?: RequestOptions): Promise<Reply<PlayerRecord & { players: PlayerRecord[] }>> {
    return this.get(`/api/v2/players/${seg(playerId)}`, undefined, opts);
  }

  // Futures and stream tokens

  /** Futures boards of a sport, a page at a time (Ultra and above). */
  futures(sportId: number, q: FuturesParams = {}, opts?: RequestOptions): Promise<Reply<FuturesPage>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/futures`, { ...q }, opts);
  }
  futuresBoard(sportId: number, eventId: string, opts?: RequestOptions): Promise<Reply<FuturesBoard>> {
    return this.get(`/api/v2/sports/${seg(sportId)}/futures/${seg(eventId)}`, undefined, opts);
  }
  /** A one-use token that opens one stream connection (for clients that cannot set headers). */
  streamToken(opts?: RequestOptions): Promise<Reply<{ token: string; expires_at: string }>> {
    return this.get('/api/v2/ws/token', undefined, { ...opts, method: 'POST' });
  }
}

/** The V1 (line-based, legacy) routes. */
export class V1Routes {
  constructor(private readonly t: Transport) {}

  sports(opts?: RequestOptions): Promise<Reply<{ sports: Sport[] }>> {
    return this.t.request('/api/v1/sports', undefined, opts);
  }
  affiliates(opts?: RequestOptions): Promise<Reply<{ affiliates: Affiliate[] }>> {
    return this.t.request('/api/v1/affiliates', undefined, opts);
  }
  /** The affiliates list under its sportsbooks alias. */
  sportsbooks(opts?: RequestOptions): Promise<Reply<{ affiliates: Affiliate[] }>> {
    return this.t.request('/api/v1/sportsbooks', undefined, opts);
  }
  events(
    sportId: number,
    date: string,
    q: V1EventParams = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1EventsEnvelope>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/events/${seg(date)}`, { ...q }, opts);
  }
  /** The widget form of `events`: the date a query parameter, default today (UTC). */
  widgetEvents(
    sportId: number,
    q: V1EventParams & { date?: string } = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1EventsEnvelope>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/widget/events`, { ...q }, opts);
  }
  /** The widget form of `openers`. */
  widgetOpening(
    sportId: number,
    q: V1EventParams & { date?: string } = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1EventsEnvelope>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/widget/opening`, { ...q }, opts);
  }
  /** The widget form of `closing`. */
  widgetClosing(
    sportId: number,
    q: V1EventParams & { date?: string } = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1EventsEnvelope>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/widget/closing`, { ...q }, opts);
  }
  /**
   * A sport's schedule from the day `from`, ordered by start (backwards with sort=desc); page with
   * `last_event_uuid` = the last row's `event_uuid` and the same parameters.
   */
  schedule(
    sportId: number,
    q: {
      from?: string;
      limit?: number;
      sort?: 'asc' | 'desc';
      season_year?: number;
      season_type_id?: number;
      team_id?: number;
      last_event_uuid?: string;
    } = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1SchedulePage>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/schedule`, { ...q }, opts);
  }
  event(
    eventId: string,
    q: { include?: readonly string[]; affiliate_ids?: Ids } = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1Event>> {
    return this.t.request(`/api/v1/events/${seg(eventId)}`, { ...q }, opts);
  }
  seasonTypes(opts?: RequestOptions): Promise<Reply<SeasonTypes>> {
    return this.t.request('/api/v1/season_types', undefined, opts);
  }
  dates(
    sportId: number,
    q: { offset?: number; format?: 'iso8601' | 'epoch' } = {},
    opts?: RequestOptions,
  ): Promise<Reply<SportDates>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/dates`, { ...q }, opts);
  }
  teams(sportId: number, opts?: RequestOptions): Promise<Reply<{ teams: SportTeam[] }>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/teams`, undefined, opts);
  }
  conferences(sportId?: number, opts?: RequestOptions): Promise<Reply<{ conferences: Conference[] }>> {
    return this.t.request(
      sportId === undefined ? '/api/v1/conferences' : `/api/v1/sports/${seg(sportId)}/conferences`,
      undefined,
      opts,
    );
  }
  divisions(sportId?: number, opts?: RequestOptions): Promise<Reply<{ divisions: Division[] }>> {
    return this.t.request(
      sportId === undefined ? '/api/v1/divisions' : `/api/v1/sports/${seg(sportId)}/divisions`,
      undefined,
      opts,
    );
  }
  /** Opening lines of a sport's day, as V1 events. */
  openers(
    sportId: number,
    date: string,
    q: V1EventParams = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1EventsEnvelope>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/openers/${seg(date)}`, { ...q }, opts);
  }
  /** Closing lines of a sport's day, as V1 events. */
  closing(
    sportId: number,
    date: string,
    q: V1EventParams = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1EventsEnvelope>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/closing/${seg(date)}`, { ...q }, opts);
  }
  /** Best lines of several events, keyed by event id. */
  bestLines(
    q: { event_ids: readonly string[]; period?: string | number; affiliate_ids?: Ids },
    opts?: RequestOptions,
  ): Promise<Reply<Record<string, BestLine>>> {
    return this.t.request('/api/v1/lines/best', { ...q }, opts);
  }
  /** Every line set of an event (each book and period). */
  lines(eventId: string, opts?: RequestOptions): Promise<Reply<{ event_id: string; lines: V1LineSet[] }>> {
    return this.t.request(`/api/v1/events/${seg(eventId)}/lines`, undefined, opts);
  }
  lineSet(eventId: string, lineId: number, opts?: RequestOptions): Promise<Reply<V1LineSet>> {
    return this.t.request(`/api/v1/events/${seg(eventId)}/lines/${seg(lineId)}`, undefined, opts);
  }
  /**
   * One family of a line: with a line id, the book's object in the line's period after each change,
   * newest first; with an event id, the current object of every book that prices it. One list
   * (`moneylines` …), or one per period name (`moneyline_periods` …) with include=['all_periods'].
   */
  lineFamily<F extends V1LineFamily>(
    lineOrEventId: number | string,
    family: F,
    q: { include?: readonly 'all_periods'[]; limit?: number; affiliate_ids?: Ids } = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1LineFamilies[F]>> {
    return this.t.request(`/api/v1/lines/${seg(lineOrEventId)}/${seg(family)}`, { ...q }, opts);
  }
  /** The V1 events delta: changed events of a sport since an integer cursor. */
  eventsDelta(
    sportId: number,
    q: { last_id: string; include?: readonly string[]; affiliate_ids?: Ids },
    opts?: RequestOptions,
  ): Promise<Reply<V1DeltaPage>> {
    return this.t.request(`/api/v1/sports/${seg(sportId)}/events/delta`, { ...q }, { ...opts, cursorRoute: true });
  }
  delta(
    q: { last_id?: string; sport_id?: number; limit?: number; include?: readonly string[]; affiliate_ids?: Ids } = {},
    opts?: RequestOptions,
  ): Promise<Reply<V1DeltaPage>> {
    return this.t.request('/api/v1/delta', { ...q }, { ...opts, cursorRoute: true });
  }
  deltaV2(q: EventDeltaParams = {}, opts?: RequestOptions): Promise<Reply<EventDeltaPage>> {
    return this.t.request('/api/v1/deltaV2', { ...q }, { ...opts, cursorRoute: true });
  }
}
