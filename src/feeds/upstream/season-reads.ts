import type { OddsbaseClient } from '../../../packages/client/src/index.ts';
import type { Board } from '../../board/board.ts';
import { SEASON_TYPES } from '../../catalog/sports.ts';
import type { SeasonValue } from '../../domain/season-stats.ts';
import type { LedgerSink, SeasonStatsUpdate } from '../../ledger/updates.ts';
import { inGroups } from './groups.ts';

/** A team whose game changed is read again at most this often: an evening of games is many polls. */
const REREAD_MS = 60_000;

export interface SeasonReadOptions {
  client: OddsbaseClient;
  ledger: LedgerSink;
  /** The mirror's board: its catalog says which teams, sports, season types and stats there are. */
  board: Board;
  now: () => number;
}

/**
 * The mirror's reads of the upstream's season aggregates (docs/feeds.md, "Season aggregates"):
 * each team's current season (the routes' default year) of every season type a sport of its league
 * plays under, handed to the ledger as `season_stats` records (a record equal to the one held
 * writes nothing). Every team the catalog lists is read after a catch-up; a team whose game the
 * event delta lists is read again, at most once a minute, before the rest. Reads take a slice of
 * each poll (`turn`), so the deltas keep their pace; their requests go through the mirror's one
 * pacer and their points count against its budget like any answer.
 */
export class SeasonReads {
  /** Teams of changed games, due once their last read is a minute old. */
  private readonly changed = new Set<number>();
  /** Teams of the catalog not read since the last catch-up. */
  private readonly sweep = new Set<number>();
  private readonly lastRead = new Map<number, number>();

  constructor(private readonly o: SeasonReadOptions) {}

  /** Every team of the catalog is due: those of the games the mirror holds first. */
  all(): void {
    const catalog = this.o.board.catalog;
    for (const ev of this.o.board.events.values()) for (const t of ev.info.teams) this.sweep.add(t.team_id);
    for (const sport of catalog.sports()) {
      for (const team of catalog.teamsOfSport(sport.sport_id)?.teams ?? []) this.sweep.add(team.team_id);
    }
  }

  /** The teams of games the event delta listed: their aggregate "may include in-progress activity". */
  gamesChanged(teamIds: Iterable<number>): void {
    for (const id of teamIds) this.changed.add(id);
  }

  /** Reads due teams until `sliceMs` has passed (one team at least, when any is due). */
  async turn(sliceMs: number, signal: AbortSignal): Promise<void> {
    const until = performance.now() + sliceMs;
    let first = true;
    while (first || performance.now() < until) {
      first = false;
      const team = this.next();
      if (team === undefined) return;
      try {
        await this.read(team, signal);
      } catch (err) {
        // Due first at the next turn: a failed read is not a read.
        this.lastRead.delete(team);
        this.changed.add(team);
        throw err;
      }
    }
  }

  private next(): number | undefined {
    const now = this.o.now();
    for (const id of this.changed) {
      if ((this.lastRead.get(id) ?? -Infinity) + REREAD_MS > now) continue;
      this.changed.delete(id);
      this.sweep.delete(id);
      return id;
    }
    const [id] = this.sweep;
    if (id === undefined) return undefined;
    this.sweep.delete(id);
    return id;
  }

  /** One team's seasons, a record per season type its league plays under. */
  private async read(teamId: number, signal: AbortSignal): Promise<void> {
    this.lastRead.set(teamId, this.o.now());
    const catalog = this.o.board.catalog;
    const sportIds = catalog.homeSportIds(teamId);
    if (!sportIds) return;
    const updates: SeasonStatsUpdate[] = [];
    for (const type of SEASON_TYPES) {
      const sports = sportIds.filter((id) => catalog.sport(id)?.season_type === type.name);
      if (sports.length === 0) continue;
      const stats = catalog.stats().filter((s) => sports.includes(s.sport_id));
      const teamIds = stats.filter((s) => s.scope !== 'player').map((s) => s.id);
      const playerIds = stats.filter((s) => s.scope !== 'team').map((s) => s.id);
      const q = { season_type: type.season_type_id };
      let year: number | undefined;
      const own: SeasonValue[] = [];
      for (const group of inGroups(teamIds)) {
        const groups = (await this.o.client.teamSeasonStats(teamId, { ...q, stats_ids: group }, { signal })).data;
        for (const g of groups) {
          year ??= g.season.year;
          own.push(...g.stats.map((v) => ({ stat_id: v.stat_id, value: v.value })));
        }
      }
      const players = new Map<number, SeasonValue[]>();
      for (const group of inGroups(playerIds)) {
        const groups = (await this.o.client.playerSeasonStats(teamId, { ...q, stats_ids: group }, { signal })).data;
        for (const g of groups) {
          year ??= g.season.year;
          let values = players.get(g.player.player_id);
          if (!values) players.set(g.player.player_id, (values = []));
          values.push(...g.stats.map((v) => ({ stat_id: v.stat_id, value: String(v.value) })));
        }
      }
      // No answer named the season (an upstream that lists nothing for the team): nothing to hold.
      if (year === undefined) continue;
      updates.push({
        kind: 'season_stats',
        team_id: teamId,
        year,
        season_type: type.season_type_id,
        stats: own,
        players: [...players].map(([player_id, stats]) => ({ player_id, stats })),
      });
    }
    signal.throwIfAborted();
    if (updates.length > 0) await this.o.ledger.apply({ at: new Date(this.o.now()).toISOString(), updates });
  }
}
