import { createHash } from 'node:crypto';
import { type Discipline, sportProfile } from '../sports.ts';
import { homeLeagueOf, teamById } from '../teams/index.ts';
import type { LeagueCatalog, TeamRecord } from '../teams/types.ts';
import { NAME_POOLS, type NameRegion } from './names.ts';
import { squadPlan } from './squads.ts';

/**
 * The players of every team sport's teams: reference data like the team catalog, the same on every
 * server whatever its simulator seed, so a player id means one person everywhere (rosters, player
 * props, box scores). Generated from a fixed seed on demand: nothing is kept per request.
 */

export interface RosterPlayer {
  /** team_id * 100 + roster slot (from 1): unique across every team. */
  player_id: number;
  name: string;
  first_name: string;
  last_name: string;
  position: string;
  /** A string, as rosters serve it ("00" is not 0). */
  jersey_number: string;
  team_id: number;
}

const SLOTS_PER_TEAM = 100;
const CATALOG_SEED = 'oddsbase-rosters-1';

/** A uniform number in [0, 1) fixed by its parts. */
function unit(...parts: readonly (string | number)[]): number {
  return (
    createHash('md5')
      .update(`${CATALOG_SEED}|${parts.join('|')}`)
      .digest()
      .readUInt32BE(0) /
    2 ** 32
  );
}

function regionOf(league: LeagueCatalog): NameRegion {
  if (league.key === 'jleague') return 'japan';
  if (league.key === 'ipl' || league.key === 't20') return 'cricket';
  const discipline = sportProfile(league.sport_ids[0]!)?.discipline;
  return discipline === 'soccer' && league.key !== 'mls' ? 'europe' : 'north_america';
}

/** The sport id a team is listed under: its home league's first (regular-season) sport id. */
export function homeSportOf(teamId: number): number | undefined {
  return homeLeagueOf(teamId)?.sport_ids[0];
}

/** What an athlete is listed as, per individual discipline; MMA fighters by their weight class. */
function athletePosition(team: TeamRecord, discipline: Discipline): string {
  switch (discipline) {
    case 'tennis':
      return 'Singles';
    case 'mma':
      return team.division || 'Fighter';
    case 'golf':
      return 'Golfer';
    case 'motorsport':
      return 'Driver';
    default:
      return 'Athlete';
  }
}

/**
 * An athlete is a roster of one: the player who appears in box scores and plays under the
 * athlete's competitor id (team_id x 100 + 1), with the athlete's own name.
 */
function athlete(team: TeamRecord, discipline: Discipline): RosterPlayer {
  const space = team.name.indexOf(' ');
  return {
    player_id: team.team_id * SLOTS_PER_TEAM + 1,
    name: team.name,
    first_name: space < 0 ? team.name : team.name.slice(0, space),
    last_name: space < 0 ? '' : team.name.slice(space + 1),
    position: athletePosition(team, discipline),
    jersey_number: '',
    team_id: team.team_id,
  };
}

function generate(team: TeamRecord, league: LeagueCatalog): RosterPlayer[] {
  const discipline = sportProfile(league.sport_ids[0]!)!.discipline;
  if (league.individual) return [athlete(team, discipline)];
  const plan = squadPlan(discipline);
  if (!plan) return [];
  const pool = NAME_POOLS[regionOf(league)];
  const pick = <T>(list: readonly T[], ...parts: (string | number)[]) =>
    list[Math.floor(unit(...parts) * list.length)]!;
  // Jerseys: the squad's numbers in an order fixed per team; each player takes the next one.
  const jerseys = [...plan.jerseys]
    .map((n) => ({ n, key: unit('jersey', team.team_id, n) }))
    .sort((a, b) => a.key - b.key)
    .map((j) => j.n);
  const names = new Set<string>();
  return plan.positions.map((position, slot) => {
    let first = '';
    let last = '';
    for (let attempt = 0; first === '' || names.has(`${first} ${last}`); attempt++) {
      first = pick(pool.first, 'first', team.team_id, slot, attempt);
      last = pick(pool.last, 'last', team.team_id, slot, attempt);
    }
    names.add(`${first} ${last}`);
    return {
      player_id: team.team_id * SLOTS_PER_TEAM + slot + 1,
      name: `${first} ${last}`,
      first_name: first,
      last_name: last,
      position,
      jersey_number: jerseys[slot]!,
      team_id: team.team_id,
    };
  });
}

/**
 * A team's players in roster order; the athlete alone for an individual competitor; an empty list
 * for a competitor without players (a candidate); undefined for an unknown team id.
 */
export function rosterOf(teamId: number): readonly RosterPlayer[] | undefined {
  const kept = rosters.get(teamId);
  if (kept) return kept;
  const team = teamById(teamId);
  const league = homeLeagueOf(teamId);
  if (!team || !league) return undefined;
  const roster = Object.freeze(generate(team, league).map((p) => Object.freeze(p)));
  rosters.set(teamId, roster);
  return roster;
}

/**
 * Rosters are fixed by the catalog, so each is generated once, when first asked for, like the
 * catalog's other maps built at load; box scores look a player up per row.
 */
const rosters = new Map<number, readonly RosterPlayer[]>();

/** A player by id, or undefined when no team's roster has it. */
export function playerById(playerId: number): RosterPlayer | undefined {
  if (!Number.isSafeInteger(playerId) || playerId <= 0) return undefined;
  const slot = (playerId % SLOTS_PER_TEAM) - 1;
  return rosterOf(Math.floor(playerId / SLOTS_PER_TEAM))?.[slot];
}
