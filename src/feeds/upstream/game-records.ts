import type { Play, PlayerGameStats, TeamGameStats } from '../../../packages/client/src/index.ts';
import type { StatLookup } from '../../catalog/stat-table.ts';
import { playFields } from '../../domain/plays.ts';
import type { BoxScoreUpdate, BoxValue, PlayUpdate } from '../../ledger/updates.ts';

/**
 * The upstream's plays and box scores as ingest records. The upstream's routes show each play and
 * each box value, not the stat credits its ledger built the values from, so a play goes in with no
 * credits and the box is set as shown (`box_score`): the mirror's box scores, and the season stats
 * summed from them, are the upstream's.
 */

/** A play as the upstream lists it: its number and time kept, no credits (the box is set apart). */
export function playRecord(p: Play): PlayUpdate {
  return {
    kind: 'play',
    event_id: p.event_id,
    play: {
      ...playFields(p),
      credits: [],
      people: [],
      sequence: p.sequence,
      created_at: p.created_at,
    },
  };
}

/**
 * An event's box score from the upstream's two box routes, teams and players in the order shown (the
 * order players first appeared), as the whole box: a value the mirror holds and the upstream no
 * longer shows is taken away. A value of a stat the mirror's catalog does not keep for the sport,
 * or one that is not a number, is left out: the ledger would refuse the whole record for it.
 */
export function boxScoreRecord(
  eventId: string,
  sportId: number,
  teams: TeamGameStats,
  players: PlayerGameStats,
  stats: StatLookup,
): BoxScoreUpdate {
  const kept = (v: BoxValue) =>
    stats.statOf(sportId, v.stat_id) !== undefined && v.value.trim() !== '' && Number.isFinite(Number(v.value));
  return {
    kind: 'box_score',
    event_id: eventId,
    teams: teams.map((g) => ({
      team_id: g.team.team_id,
      stats: g.stats.map((r) => ({ stat_id: r.stat_id, value: r.value })).filter(kept),
    })),
    players: players.map((g) => ({
      player_id: g.player.id,
      team_id: g.player.team_id,
      display_name: g.player.display_name,
      position: g.player.position,
      stats: g.stats.map((r) => ({ stat_id: r.stat.id, value: r.value })).filter(kept),
    })),
    whole: true,
  };
}
