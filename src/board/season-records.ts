import { type SeasonStats, type SeasonValue, seasonKey } from '../domain/season-stats.ts';

/** One held version of a season record: the row that wrote it and its values as numbers. */
export interface HeldSeason {
  /** The season row's change id: the answers built from it are kept under it. */
  id: number;
  committedMs: number;
  text: string;
  team: ReadonlyMap<number, number>;
  players: ReadonlyMap<number, ReadonlyMap<number, number>>;
}

/**
 * Versions kept behind the newest: a delayed plan (at most 5 minutes) may still stand before the
 * newest row, and is served the version its head shows. Twice the longest delay, by commit time.
 */
const KEEP_BEHIND_MS = 10 * 60_000;

const numbers = (values: readonly SeasonValue[]) => new Map(values.map((v) => [v.stat_id, Number(v.value)]));

/** What the season routes read of the held records. */
export type HeldSeasons = Pick<SeasonRecords, 'at'>;

/**
 * The season records a source published (season rows of the change log), by team, year and season
 * type: the newest of each key, with the versions a delayed view may still show. Fed only by
 * board/apply.ts, in id order.
 */
export class SeasonRecords {
  private readonly byKey = new Map<string, HeldSeason[]>();

  put(season: SeasonStats, id: number, committedMs: number, text: string): void {
    const key = seasonKey(season);
    const held: HeldSeason = {
      id,
      committedMs,
      text,
      team: numbers(season.stats),
      players: new Map(season.players.map((p) => [p.player_id, numbers(p.stats)])),
    };
    const versions = this.byKey.get(key) ?? [];
    versions.push(held);
    // A version is shown to a view whose head lies before the next one: drop those whose next was
    // committed longer ago than any delay.
    const since = committedMs - KEEP_BEHIND_MS;
    let drop = 0;
    while (drop < versions.length - 1 && versions[drop + 1]!.committedMs < since) drop++;
    this.byKey.set(key, drop > 0 ? versions.slice(drop) : versions);
  }

  /** The record of a team's season as a view at `head` shows it: the newest at or before it. */
  at(teamId: number, year: number, seasonType: number, head: number): HeldSeason | undefined {
    const versions = this.byKey.get(seasonKey({ team_id: teamId, year, season_type: seasonType }));
    if (!versions) return undefined;
    for (let i = versions.length - 1; i >= 0; i--) if (versions[i]!.id <= head) return versions[i];
    return undefined;
  }

  /** Every version held, in id order per key: what a board snapshot saves. */
  *all(): Iterable<HeldSeason> {
    for (const versions of this.byKey.values()) yield* versions;
  }

  /** The newest record of a key's text, as the ledger compares a new record with it. */
  newestText(key: string): string | undefined {
    return this.byKey.get(key)?.at(-1)?.text;
  }

  clear(): void {
    this.byKey.clear();
  }
}
