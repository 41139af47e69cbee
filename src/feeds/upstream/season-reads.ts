import { ForbiddenError, type OddsbaseClient, RateLimitError } from '../../../packages/client/src/index.ts';
import type { Board } from '../../board/board.ts';
import { SEASON_TYPES } from '../../catalog/sports.ts';
import type { SeasonValue } from '../../domain/season-stats.ts';
import type { LedgerSink, SeasonStatsUpdate } from '../../ledger/updates.ts';
import { inGroups } from './groups.ts';
import { sleep } from './sleep.ts';

/** The longest wait after failed reads before the next is asked. */
const MAX_BACKOFF_MS = 30_000;

export interface SeasonReadOptions {
  /** A client whose requests yield to the follow's in the mirror's one pacer (`RequestPacer`). */
  client: OddsbaseClient;
  ledger: LedgerSink;
  /** The mirror's board: its catalog says which teams, sports, season types and stats there are. */
  board: Board;
  /** A team whose game changed is read again at most this often (`--upstream-season-ms`). */
  rereadMs: number;
  /** The first wait after a failed read, doubled per failure in a row up to 30 s. */
  backoffMs: number;
  now: () => number;
  /** How long nothing may be asked (a spent budget, a cap met by any request); 0 when it may. */
  holdMs: () => number;
  /** A read met a cap 429: the whole mirror holds until it resets (`holdMs`). */
  capped: (err: RateLimitError) => void;
  onError: (err: unknown) => void;
  log: (level: 'info' | 'warn', line: string) => void;
}

/**
 * The mirror's reads of the upstream's season aggregates (docs/feeds.md, "Season aggregates from
 * the upstream"): each team's current season (the routes' default year) of every season type a
 * sport of its league plays under, handed to the ledger as `season_stats` records (a record equal
 * to the one held writes nothing). Every team the catalog lists is due after each catch-up (`all`,
 * the teams of the games held first); a team whose game the event delta lists is due again
 * (`gamesChanged`) once its last read is `rereadMs` old, before the rest. They run as a task of
 * their own (`run`), one request at a time, never in the follow's turn: a failed read is logged and
 * its team read again later, and nothing here fails the mirror.
 */
export class SeasonReads {
  /** Teams of changed games, due once their last read is `rereadMs` old. */
  private readonly changed = new Set<number>();
  /** Teams of the catalog not read since the last catch-up, in the order they are read. */
  private readonly sweep = new Set<number>();
  private readonly lastRead = new Map<number, number>();
  /** Ends the loop's idle wait: teams became due. */
  private woken: (() => void) | undefined;
  /** The key's plan refuses season stats (403): not asked again until the mirror restarts. */
  private refused = false;

  constructor(private readonly o: SeasonReadOptions) {}

  /** No team is due: the mirror starts over, and `all` follows its catch-up. */
  clear(): void {
    this.sweep.clear();
    this.changed.clear();
  }

  /** Every team of the catalog is due: those of the games the mirror holds first. */
  all(): void {
    this.clear();
    const catalog = this.o.board.catalog;
    for (const ev of this.o.board.events.values()) for (const t of ev.info.teams) this.sweep.add(t.team_id);
    for (const sport of catalog.sports()) {
      for (const team of catalog.teamsOfSport(sport.sport_id)?.teams ?? []) this.sweep.add(team.team_id);
    }
    this.woken?.();
  }

  /** The teams of games the event delta listed: their aggregate "may include in-progress activity". */
  gamesChanged(teamIds: Iterable<number>): void {
    for (const id of teamIds) this.changed.add(id);
    this.woken?.();
  }

  /** Reads due teams until `signal` aborts; resolves then, never rejects. */
  async run(signal: AbortSignal): Promise<void> {
    let failures = 0;
    while (!signal.aborted && !this.refused) {
      const hold = this.o.holdMs();
      if (hold > 0) {
        await sleep(hold, signal);
        continue;
      }
      const team = this.next();
      if (team === undefined) {
        await this.idle(this.untilDue(), signal);
        continue;
      }
      try {
        await this.read(team, signal);
        failures = 0;
      } catch (err) {
        if (signal.aborted) return;
        if (err instanceof RateLimitError && err.isCap) {
          // Not the team's failure: it is read first once the cap resets (`holdMs`).
          this.o.capped(err);
          this.lastRead.delete(team);
          this.changed.add(team);
          continue;
        }
        failures++;
        this.failed(team, err);
        await sleep(Math.min(MAX_BACKOFF_MS, this.o.backoffMs * 2 ** Math.min(failures - 1, 8)), signal);
      }
    }
  }

  /** A failed read: its team due again after the others of the sweep, or the reads ended for a refusal. */
  private failed(team: number, err: unknown): void {
    if (err instanceof ForbiddenError) {
      this.refused = true;
      this.o.log(
        'warn',
        `the upstream refuses season stats to this key (${err.message}): not asked for them again until the mirror restarts`,
      );
      return;
    }
    this.o.onError(err);
    this.lastRead.delete(team);
    this.sweep.add(team);
  }

  private next(): number | undefined {
    const now = this.o.now();
    for (const id of this.changed) {
      if ((this.lastRead.get(id) ?? -Infinity) + this.o.rereadMs > now) continue;
      this.changed.delete(id);
      this.sweep.delete(id);
      return id;
    }
    const [id] = this.sweep;
    if (id === undefined) return undefined;
    this.sweep.delete(id);
    return id;
  }

  /** Milliseconds until the first team of a changed game is due again; Infinity when none waits. */
  private untilDue(): number {
    let first = Number.POSITIVE_INFINITY;
    for (const id of this.changed) first = Math.min(first, (this.lastRead.get(id) ?? 0) + this.o.rereadMs);
    return Math.max(0, first - this.o.now());
  }

  /** Waits `ms` (Infinity: no timer), or less when teams become due or `signal` aborts. */
  private idle(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve) => {
      if (signal.aborted) return resolve();
      let timer: NodeJS.Timeout | undefined;
      const done = () => {
        clearTimeout(timer);
        signal.removeEventListener('abort', done);
        if (this.woken === done) this.woken = undefined;
        resolve();
      };
      if (Number.isFinite(ms)) timer = setTimeout(done, ms);
      this.woken = done;
      signal.addEventListener('abort', done, { once: true });
    });
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
    // A stop hands the ledger nothing more: the server closes the store after the mirror.
    signal.throwIfAborted();
    if (updates.length > 0) await this.o.ledger.apply({ at: new Date(this.o.now()).toISOString(), updates });
  }
}
