import { marketName, TOURNAMENT_WINNER } from '../../catalog/markets.ts';
import { type SportProfile, SPORTS } from '../../catalog/sports.ts';
import { leagueForSport } from '../../catalog/teams/index.ts';
import type { FuturesHeader, FuturesParticipant } from '../../domain/futures.ts';
import { createHash } from 'node:crypto';
import { DAY_MS } from './schedule.ts';

/**
 * Which futures boards the simulator runs, and when: a pure function of seed, sport and time, so a
 * restart finds the same boards with the same ids. The simulated window holds ten days, so a
 * "season" is a two-week block (settled at its end by a draw from the final chances); golf plays a
 * tournament a week (Thursday to Sunday, moved by each round; its board opens on the Sunday before,
 * while the last one ends) and motor racing a race a week
 * (moved by Saturday's qualifying, decided on Sunday) inside four-week drivers' championships.
 */

export type BoardKind = 'season' | 'golf' | 'race' | 'drivers';

export interface BoardPlan {
  kind: BoardKind;
  sport: SportProfile;
  header: FuturesHeader;
  opensMs: number;
  endsMs: number;
  /** Times the board's prices move by themselves (golf rounds, qualifying); results move seasons. */
  stepsMs: number[];
  /** Participants' strengths before anything is played. */
  base: number[];
  /** Chance the competition is called off (the board settles void). */
  voidChance: number;
}

const SEASON_DAYS = 14;
const DRIVERS_DAYS = 28;
const HOUR = 3_600_000;
/**
 * A golf board opens this long before its week's Monday: on the Sunday, while the week before's
 * final round is played (it is decided at 22:00 UTC), as books post the next tournament's prices
 * before the last one ends, so a golf board is open at every hour of the week.
 */
const GOLF_OPENS_EARLY = 6 * HOUR;

/** Team sports of a regular season or a tournament: preseason and playoff ids feed their league's board. */
function hasSeasonBoard(s: SportProfile): boolean {
  if (s.futures_only || s.discipline === 'tennis' || s.discipline === 'mma' || s.discipline === 'politics')
    return false;
  return s.season_type === 'Regular Season' || s.season_type === 'Special';
}

/** Tournaments (a cup or a championship of national teams) are won, not topped: market 1141. */
const TOURNAMENT_SPORTS = new Set([16, 17, 18, 21, 33]);

const GOLF_EVENTS = [
  'Harbour Open',
  'Pinecrest Classic',
  'Desert Invitational',
  'Links Championship',
  'Lakeside Masters',
  'Coastal Open',
];
const RACES = [
  'Grand Prix of Aldermoor',
  'Grand Prix of Bellhaven',
  'Grand Prix of Corrado',
  'Grand Prix of Dunmere',
  'Grand Prix of Estoria',
];

/** The sports that have futures boards. */
export const FUTURES_SPORTS: readonly SportProfile[] = SPORTS.filter((s) => s.futures_only || hasSeasonBoard(s));

/** The sport whose season board a game of `sportId` moves (playoff games move the league's board). */
export function seasonBoardSport(sportId: number): number | undefined {
  const sport = SPORTS.find((s) => s.sport_id === sportId);
  if (!sport || sport.season_type === 'Preseason') return undefined;
  if (hasSeasonBoard(sport)) return sportId;
  const league = leagueForSport(sportId);
  return league?.sport_ids.find((id) => SPORTS.some((s) => s.sport_id === id && hasSeasonBoard(s)));
}

export function futuresBoardId(seed: number, sportId: number, kind: BoardKind, block: number): string {
  return createHash('md5').update(`oddsbase-futures:${seed}:${sportId}:${kind}:${block}`).digest('hex');
}

const isoDate = (ms: number) => new Date(ms).toISOString().slice(0, 10);
const iso = (ms: number) => new Date(ms).toISOString();
/** Monday of the UTC week holding `day` (day 0, 1970-01-01, was a Thursday). */
const weekOf = (day: number) => day - ((day + 3) % 7);

function participants(sport: SportProfile): FuturesParticipant[] {
  const league = leagueForSport(sport.sport_id);
  const type = sport.futures_only ? 'TYPE_PLAYER' : 'TYPE_TEAM';
  return (league?.teams ?? []).map((t) => {
    const name = t.mascot ? `${t.name} ${t.mascot}` : t.name;
    return type === 'TYPE_TEAM' ? { id: t.team_id, name, type, team_id: t.team_id } : { id: t.team_id, name, type };
  });
}

function plan(
  seed: number,
  sport: SportProfile,
  kind: BoardKind,
  block: number,
  opensMs: number,
  startsMs: number,
  endsMs: number,
  name: string,
  marketId: number,
  stepsMs: number[],
  strength: (id: number) => number,
  voidChance: number,
): BoardPlan {
  const field = participants(sport);
  return {
    kind,
    sport,
    opensMs,
    endsMs,
    stepsMs,
    voidChance,
    base: field.map((p) => strength(p.id)),
    header: {
      event_id: futuresBoardId(seed, sport.sport_id, kind, block),
      sport_id: sport.sport_id,
      name,
      season_year: new Date(startsMs).getUTCFullYear(),
      starts_at: iso(startsMs),
      ends_at: iso(endsMs),
      markets: [{ market_id: marketId, name: marketName(marketId), participants: field }],
    },
  };
}

/**
 * The boards of a sport whose block holds `t`, and of the block before it (which may still have to
 * be settled). `strength` gives a participant's standing before the block.
 */
export function boardsAround(
  seed: number,
  sport: SportProfile,
  t: number,
  strength: (id: number) => number,
): BoardPlan[] {
  const day = Math.floor(t / DAY_MS);
  const out: BoardPlan[] = [];
  const league = leagueForSport(sport.sport_id)?.league_name ?? sport.sport_name;
  if (sport.discipline === 'golf' || sport.discipline === 'motorsport') {
    // Golf: next week's board as well, which opens on this week's Sunday.
    const weeks = sport.discipline === 'golf' ? [-7, 0, 7] : [-7, 0];
    for (const monday of weeks.map((w) => weekOf(day) + w)) {
      const week = monday * DAY_MS;
      if (sport.discipline === 'golf') {
        const rounds = [3, 4, 5, 6].map((d) => week + d * DAY_MS + 22 * HOUR);
        const name = `${GOLF_EVENTS[monday % GOLF_EVENTS.length]} ${isoDate(week + 3 * DAY_MS)}`;
        out.push(
          plan(
            seed,
            sport,
            'golf',
            monday,
            week - GOLF_OPENS_EARLY,
            week + 3 * DAY_MS + 12 * HOUR,
            rounds[3]!,
            name,
            TOURNAMENT_WINNER,
            rounds.slice(0, 3),
            strength,
            0.04,
          ),
        );
      } else {
        const race = week + 6 * DAY_MS + 13 * HOUR;
        const name = `${RACES[monday % RACES.length]} ${isoDate(race)}`;
        out.push(
          plan(
            seed,
            sport,
            'race',
            monday,
            week,
            race,
            race + 2 * HOUR,
            name,
            TOURNAMENT_WINNER,
            [race - 22 * HOUR],
            strength,
            0.04,
          ),
        );
      }
    }
  }
  const days = sport.discipline === 'motorsport' ? DRIVERS_DAYS : SEASON_DAYS;
  if (sport.discipline === 'golf') return out;
  const kind: BoardKind = sport.discipline === 'motorsport' ? 'drivers' : 'season';
  const current = Math.floor(day / days);
  for (const block of [current - 1, current]) {
    const opens = block * days * DAY_MS;
    const ends = opens + days * DAY_MS;
    // 1141 on every winner board (the market existing clients' winner boards read, issue 43).
    const market = TOURNAMENT_WINNER;
    const title =
      kind === 'drivers'
        ? `${league} Drivers' Championship`
        : TOURNAMENT_SPORTS.has(sport.sport_id)
          ? `${league} Winner`
          : `${league} Championship`;
    const name = `${title} ${isoDate(opens)} to ${isoDate(ends - DAY_MS)}`;
    out.push(plan(seed, sport, kind, block, opens, opens, ends, name, market, [], strength, 0));
  }
  return out;
}
