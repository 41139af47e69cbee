import { seasonYear } from '../../catalog/seasons.ts';
import type { SportProfile } from '../../catalog/sports.ts';
import { SPORTS } from '../../catalog/sports.ts';
import type { LeagueCatalog, TeamRecord } from '../../catalog/teams/index.ts';
import { leagueForSport } from '../../catalog/teams/index.ts';
import type { EventTeam, Schedule } from '../../domain/types.ts';
import type { EventUpsert } from '../../ledger/updates.ts';
import { eventId, eventSlug, eventUuid, numericId } from './ids.ts';
import { teamRatings } from './model.ts';
import { hashUnit, Rng } from './rng.ts';

/**
 * The schedule: which games each sport plays on a UTC day, when, and between whom. A pure
 * function of seed, sport and day, so every restart rebuilds the same events with the same ids.
 */

export const DAY_MS = 86_400_000;

export interface EventSpec {
  id: string;
  sport: SportProfile;
  league: LeagueCatalog;
  /** UTC day number (epoch ms / DAY_MS). */
  day: number;
  startMs: number;
  away: TeamRecord;
  home: TeamRecord;
  neutral: boolean;
  /** The scheduled game is postponed or canceled some hours before its start. */
  fate: 'play' | 'postponed' | 'canceled';
  /** MMA: the last fight of a card is the five-round main event. */
  mainEvent: boolean;
  /** Prediction-market event slug (affiliate 26's source id). */
  slug: string;
  header: EventUpsert['event'];
}

type Range = readonly [number, number];

interface DayPlan {
  /** Inclusive bounds of the number of games. */
  games: readonly [number, number];
  /** UTC hour ranges the starts are spread over, or exact start hours (one per game, cycled). */
  ranges?: readonly Range[];
  slots?: readonly number[];
  /** Slot starts wander up to this many hours late. */
  jitter?: number;
}

const US_NIGHT: Range[] = [
  [23, 24],
  [0, 3],
];
const none: DayPlan = { games: [0, 0] };
const daily = (games: readonly [number, number], ranges: readonly Range[]) => () => ({ games, ranges });
const euroLeague =
  (sat: DayPlan, sun: DayPlan, midweek: DayPlan, other: DayPlan = none) =>
  (weekday: number): DayPlan =>
    weekday === 6 ? sat : weekday === 0 ? sun : weekday === 2 || weekday === 3 ? midweek : other;

/** `n` starts evenly spaced from hour `from` up to (not including) `to`, shifted by `phase` of a spacing. */
const spread = (from: number, to: number, n: number, phase = 0) =>
  Array.from({ length: n }, (_, i) => from + ((i + phase) * (to - from)) / n);

/**
 * Tennis is played around the clock on many courts (Asia, Europe, the Americas), starts spread
 * evenly, an ATP and a WTA match in turn, so that best-of-three matches (an hour at the very least)
 * always overlap the next starts. They carry the hours when few team sports are on: denser from 2
 * to 12 UTC (the Asian afternoon, the European morning), sparser from noon, when soccer, cricket
 * and the American sports take over; none start in US prime time (midnight to 2 am UTC). Each
 * tour's 80 players play at most once a day: 40 matches a day per tour.
 */
const tennisSlots = (phase: number) => [...spread(2, 18, 32, phase), ...spread(18, 24, 8, phase)];
const ATP_SLOTS = tennisSlots(0);
const WTA_SLOTS = tennisSlots(0.5);
const TENNIS_JITTER = 1 / 6;

/** Games per UTC weekday (0 = Sunday) and start hours, per sport id. */
const PLANS: Record<number, (weekday: number) => DayPlan> = {
  1: (wd) =>
    wd === 6
      ? { games: [9, 11], ranges: [[16, 24]] }
      : wd === 0
        ? { games: [2, 3], ranges: [[0, 3.5]] }
        : wd >= 3 && wd <= 5
          ? { games: [0, 1], ranges: [[0, 2]] }
          : none,
  2: (wd) =>
    wd === 0
      ? { games: [9, 10], slots: [18, 18, 18, 18, 18, 18, 21.1, 21.1, 21.42, 21.42] }
      : wd === 1
        ? { games: [1, 1], slots: [1.33] }
        : wd === 2 || wd === 5
          ? { games: [1, 1], slots: [1.25] }
          : none,
  3: daily(
    [6, 8],
    [
      [16.5, 24],
      [0, 2.5],
    ],
  ),
  4: daily(
    [5, 8],
    [
      [23.5, 24],
      [0, 3],
    ],
  ),
  5: daily(
    [8, 11],
    [
      [16, 24],
      [0, 3],
    ],
  ),
  6: daily([4, 7], US_NIGHT),
  7: (wd) => (wd === 0 ? { games: [6, 6], slots: [0, 0.5, 1, 1.5, 2, 2.5] } : none),
  8: daily([1, 3], US_NIGHT),
  10: (wd) =>
    wd === 0
      ? { games: [3, 5], ranges: [[0, 3]] }
      : wd === 6
        ? { games: [1, 2], ranges: [[20, 24]] }
        : wd === 4
          ? { games: [0, 2], ranges: [[0, 2.5]] }
          : none,
  11: euroLeague(
    { games: [5, 6], ranges: [[12, 20]] },
    { games: [3, 4], ranges: [[13, 17]] },
    {
      games: [0, 3],
      slots: [19.75, 20],
    },
    { games: [0, 1], slots: [20] },
  ),
  12: euroLeague(
    { games: [3, 4], ranges: [[16, 20]] },
    { games: [4, 5], ranges: [[12, 20]] },
    {
      games: [0, 2],
      slots: [18, 20],
    },
    { games: [0, 1], slots: [19.75] },
  ),
  13: euroLeague(
    { games: [5, 6], slots: [14.5, 14.5, 14.5, 14.5, 14.5, 17.5] },
    { games: [2, 2], slots: [14.5, 16.5] },
    {
      games: [0, 2],
      slots: [17.5, 19.5],
    },
    { games: [0, 1], slots: [19.5] },
  ),
  14: euroLeague(
    { games: [4, 4], ranges: [[13, 21]] },
    { games: [4, 4], ranges: [[13, 21]] },
    {
      games: [0, 2],
      slots: [18, 20],
    },
    { games: [0, 1], slots: [20] },
  ),
  15: euroLeague(
    { games: [3, 3], ranges: [[14, 20]] },
    { games: [4, 5], ranges: [[11.5, 20]] },
    {
      games: [0, 2],
      slots: [17.5, 19.75],
    },
    { games: [0, 1], slots: [19.75] },
  ),
  16: (wd) => (wd === 2 || wd === 3 ? { games: [4, 6], slots: [17.75, 20, 20, 20, 17.75, 20] } : none),
  17: daily([2, 3], []),
  18: daily([2, 4], []),
  // Weekend afternoons and evenings in Japan; midweek rounds and cup ties on weekday evenings.
  19: (wd) =>
    wd === 6 || wd === 0
      ? { games: [3, 5], ranges: [[5, 11]] }
      : wd >= 2 && wd <= 5
        ? { games: [1, 2], ranges: [[9.5, 10.5]] }
        : none,
  // IPL afternoon and evening games (15:30 and 19:30 in India).
  20: () => ({ games: [2, 2], slots: [10, 14] }),
  // T20 series around the world, one after the other: Oceania and Asia through the Asian day,
  // then England and South Africa in the European afternoon and the Caribbean in its evening.
  21: () => ({ games: [8, 8], slots: [1, 3.5, 6, 8.5, 11, 14, 17.5, 21] }),
  22: daily([1, 2], [[0, 24]]),
  23: daily([1, 2], US_NIGHT),
  24: daily([1, 2], US_NIGHT),
  25: (wd) =>
    wd === 5 || wd === 6 || wd === 0
      ? {
          games: [2, 3],
          ranges: [
            [23, 24],
            [0, 2],
          ],
        }
      : none,
  26: (wd) => (wd === 6 || wd === 0 ? { games: [2, 2], slots: [21.5, 1.25] } : none),
  27: daily([1, 2], US_NIGHT),
  28: daily([1, 2], US_NIGHT),
  // Spring training plays in the Florida and Arizona afternoons (noon to 3 pm ET).
  30: () => ({ games: [3, 4], slots: [17, 18, 18, 20] }),
  31: daily(
    [1, 2],
    [
      [20, 24],
      [0, 1],
    ],
  ),
  32: daily(
    [2, 3],
    [
      [19, 24],
      [0, 4],
    ],
  ),
  33: (wd) => (wd === 4 ? { games: [4, 6], slots: [17.75, 20, 20, 17.75, 20, 20] } : none),
  38: () => ({ games: [ATP_SLOTS.length, ATP_SLOTS.length], slots: ATP_SLOTS, jitter: TENNIS_JITTER }),
  39: () => ({ games: [WTA_SLOTS.length, WTA_SLOTS.length], slots: WTA_SLOTS, jitter: TENNIS_JITTER }),
};

/**
 * Time (ms) before its start an event is known, where that is less than the window ahead: tennis
 * orders of play come out the day before (which also keeps its many matches within the history budget).
 */
export function leadMs(sport: SportProfile): number {
  return sport.discipline === 'tennis' ? DAY_MS : Number.POSITIVE_INFINITY;
}

/** Tournament days (Euro, World Cup): three or four slots a day. */
const TOURNAMENT_SLOTS = [13, 16, 19, 10];

const BROADCASTS: Partial<Record<SportProfile['discipline'], string[]>> = {
  football: ['CBS', 'FOX', 'NBC', 'ESPN', 'Prime Video', 'ABC'],
  basketball: ['ESPN', 'TNT', 'ABC', 'NBA TV', 'Local', ''],
  baseball: ['FOX', 'ESPN', 'MLB Network', 'Local', ''],
  hockey: ['ESPN', 'TNT', 'ESPN+', 'Local'],
  soccer: ['Peacock', 'USA Network', 'Paramount+', 'ESPN+', ''],
  tennis: ['Tennis Channel', ''],
  mma: ['ESPN+'],
};

export function isoDate(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** ISO 8601 UTC without milliseconds, as event_date is served: "2026-11-23T19:30:00Z". */
export function isoSeconds(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 19)}Z`;
}

export function displayName(team: TeamRecord): string {
  return team.mascot ? `${team.name} ${team.mascot}` : team.name;
}

function startHours(plan: DayPlan, count: number, rng: Rng): number[] {
  const ranges = plan.ranges ?? [];
  const firstRange = ranges[0];
  if (plan.slots || !firstRange) {
    const slots = plan.slots ?? TOURNAMENT_SLOTS;
    const jitter = plan.jitter ?? 0;
    // Every plan's slot list is non-empty, so the index is in range.
    return Array.from({ length: count }, (_, i) => slots[i % slots.length]! + rng.between(0, jitter));
  }
  const total = ranges.reduce((acc, [a, b]) => acc + (b - a), 0);
  const hours = Array.from({ length: count }, () => {
    let x = rng.next() * total;
    for (const [a, b] of ranges) {
      if (x <= b - a) return a + x;
      x -= b - a;
    }
    return firstRange[0];
  });
  return hours.sort((a, b) => a - b);
}

/** Quarter hours for team sports, five minutes for tennis. */
function quantize(hour: number, sportId: number): number {
  const step = sportId === 38 || sportId === 39 ? 5 : 15;
  return Math.min(24 * 60 - step, Math.round((hour * 60) / step) * step);
}

/**
 * Teams of a league available to a sport on a day: the league's teams are shuffled per day and
 * the sport ids sharing the league take consecutive slices, so no team plays twice a day.
 */
function teamsFor(seed: number, league: LeagueCatalog, sportId: number, day: number): TeamRecord[] {
  const pool = Rng.of(seed, 'teams', league.key, day).shuffle(league.teams);
  let offset = 0;
  for (const id of league.sport_ids) {
    if (id === sportId) break;
    offset += 2 * gameCount(seed, id, day);
  }
  return pool.slice(offset % pool.length).concat(pool.slice(0, offset % pool.length));
}

function planFor(sportId: number, day: number): DayPlan {
  const weekday = new Date(day * DAY_MS).getUTCDay();
  return (PLANS[sportId] ?? (() => none))(weekday);
}

function gameCount(seed: number, sportId: number, day: number): number {
  const [lo, hi] = planFor(sportId, day).games;
  return lo + Math.floor(hashUnit(seed, 'count', sportId, day) * (hi - lo + 1));
}

/** Win-loss record as the sport writes it, from the team's strength and the season's progress. */
function record(seed: number, sport: SportProfile, team: TeamRecord, day: number): string {
  const d = sport.discipline;
  if (d === 'politics') return '';
  const seasonGames: Partial<Record<SportProfile['discipline'], number>> = {
    football: 17,
    basketball: 82,
    baseball: 162,
    hockey: 82,
    soccer: 38,
    cricket: 14,
    tennis: 60,
    mma: 30,
  };
  const progress = ((((day + 120) % 365) + 365) % 365) / 365;
  const games = Math.max(1, Math.round((seasonGames[d] ?? 20) * (d === 'mma' ? 0.5 + 0.5 * progress : progress)));
  const strength = teamRatings(seed, team.team_id).strength;
  const pct = Math.min(0.9, Math.max(0.1, 0.5 + 0.15 * strength + 0.06 * (hashUnit(seed, 'rec', team.team_id) - 0.5)));
  const wins = Math.round(games * pct);
  if (d === 'hockey') {
    const otl = Math.round((games - wins) * 0.2);
    return `${wins}-${games - wins - otl}-${otl}`;
  }
  if (d === 'soccer') {
    const draws = Math.round(games * 0.25);
    const w = Math.round((games - draws) * pct);
    return `${w}-${draws}-${games - draws - w}`;
  }
  if (d === 'mma') return `${wins}-${games - wins}-0`;
  return `${wins}-${games - wins}`;
}

function eventTeam(seed: number, sport: SportProfile, team: TeamRecord, day: number, home: boolean): EventTeam {
  return {
    team_id: team.team_id,
    name: team.name,
    mascot: team.mascot,
    abbreviation: team.abbreviation,
    record: record(seed, sport, team, day),
    is_away: !home,
    is_home: home,
  };
}

/**
 * The events of one sport on one UTC day. `sources` decides which books expose their own event
 * id in affiliate_source_ids (the books that price the event).
 */
export function daySchedule(
  seed: number,
  sport: SportProfile,
  day: number,
  sources: (eventId: string, affiliateId: number) => boolean,
): EventSpec[] {
  // Futures-only sports (golf, motor racing) have boards (futures.ts) and no games.
  if (sport.futures_only) return [];
  const league = leagueForSport(sport.sport_id);
  if (!league || league.teams.length < 2) return [];
  const plan = planFor(sport.sport_id, day);
  const count = Math.min(gameCount(seed, sport.sport_id, day), Math.floor(league.teams.length / 2));
  if (count === 0) return [];
  const rng = Rng.of(seed, 'day', sport.sport_id, day);
  const hours = startHours(plan, count, rng);
  const pool = teamsFor(seed, league, sport.sport_id, day);
  const date = isoDate(day);
  const d = sport.discipline;
  // Baseball doubleheaders: the first pairing plays twice, the second game later the same day.
  const doubleheader = d === 'baseball' && count >= 2 && hashUnit(seed, 'dh', sport.sport_id, day) < 0.12;
  const neutral = d === 'tennis' || d === 'mma' || d === 'politics' || sport.sport_id === 17 || sport.sport_id === 18;
  const rotationBase = 100 + 50 * SPORTS.findIndex((s) => s.sport_id === sport.sport_id);
  const out: EventSpec[] = [];
  for (let i = 0; i < count; i++) {
    const pair = doubleheader && i >= 1 ? i - 1 : i;
    const second = doubleheader && i === 1;
    const away = pool[(2 * pair) % pool.length];
    const home = pool[(2 * pair + 1) % pool.length];
    if (!away || !home) throw new Error(`league ${league.key} has no teams to schedule`);
    // hours holds one start per game, count of them.
    const minutes = quantize(hours[second ? 0 : i]!, sport.sport_id) + (second ? 210 : 0);
    const startMs = day * DAY_MS + Math.min(minutes, 24 * 60 - 5) * 60_000;
    const id = eventId(seed, sport.sport_id, date, i);
    const gameNumber = doubleheader && i <= 1 ? i + 1 : undefined;
    const schedule: Schedule = {
      season_type: sport.season_type,
      season_year: seasonYear(sport, startMs),
      event_name: neutral
        ? `${displayName(away)} vs ${displayName(home)}`
        : `${displayName(away)} at ${displayName(home)}`,
      league_name: league.league_name,
    };
    if (gameNumber !== undefined) {
      schedule.game_number = gameNumber;
      schedule.game_type = 'doubleheader';
    }
    const slug = eventSlug(league.key, away.abbreviation, home.abbreviation, date, gameNumber);
    const sourceIds: Record<string, string> = {};
    if (sources(id, 19)) sourceIds['19'] = numericId(9, seed, id, 19);
    if (sources(id, 25)) {
      const ticker = `KX${league.key.toUpperCase()}-${date.slice(2).replaceAll('-', '')}`;
      sourceIds['25'] = `${ticker}${away.abbreviation}${home.abbreviation}`;
    }
    if (sources(id, 26)) sourceIds['26'] = slug;
    const fateRoll = hashUnit(seed, 'fate', id);
    const postponeShare = d === 'baseball' ? 0.04 : d === 'politics' ? 0 : 0.012;
    const header: EventUpsert['event'] = {
      event_id: id,
      sport_id: sport.sport_id,
      event_uuid: eventUuid(id),
      event_date: isoSeconds(startMs),
      teams: [eventTeam(seed, sport, away, day, false), eventTeam(seed, sport, home, day, true)],
      schedule,
    };
    if (d !== 'soccer') {
      header.rotation_number_away = rotationBase + 2 * i + 1;
      header.rotation_number_home = rotationBase + 2 * i + 2;
    }
    if (Object.keys(sourceIds).length > 0) header.affiliate_source_ids = sourceIds;
    out.push({
      id,
      sport,
      league,
      day,
      startMs,
      away,
      home,
      neutral,
      fate: fateRoll < postponeShare ? 'postponed' : fateRoll < postponeShare + 0.004 ? 'canceled' : 'play',
      mainEvent: d === 'mma' && i === count - 1,
      slug,
      header,
    });
  }
  return out;
}

/** Broadcast network of an event ('' where none is known). */
export function broadcastFor(seed: number, spec: EventSpec): string {
  const list = BROADCASTS[spec.sport.discipline];
  if (!list) return '';
  return list[Math.floor(hashUnit(seed, 'tv', spec.id) * list.length)] ?? '';
}
