import { type CatalogRecord, catalogKey, catalogText, type StatsEntry } from './records.ts';
import type { SportStat } from './stats.ts';

/** A sport's stat definitions from its `stats` record, in listing order, looked up by id and name. */
export class StatTable {
  readonly list: readonly SportStat[];
  private readonly byId = new Map<number, SportStat>();
  private readonly byName = new Map<string, SportStat>();

  constructor(record: StatsEntry) {
    this.list = Object.freeze(
      record.stats.map((s) =>
        Object.freeze({
          id: s.id,
          name: s.name,
          display_name: s.display_name,
          abbreviation: s.abbreviation,
          sport_id: record.sport_id,
          category: s.category,
          description: s.description,
          scope: s.scope,
        }),
      ),
    );
    for (const s of this.list) {
      this.byId.set(s.id, s);
      this.byName.set(s.name, s);
    }
  }

  stat(statId: number): SportStat | undefined {
    return this.byId.get(statId);
  }

  named(name: string): SportStat | undefined {
    return this.byName.get(name);
  }
}

/** Where the ledger, the routes and the streams find a sport's stats: the catalog, or a batch's view of it. */
export interface StatLookup {
  /** A sport's stat by id; undefined when the sport keeps none of that id. */
  statOf(sportId: number, statId: number): SportStat | undefined;
  /** A sport's stat by name; undefined when the sport keeps none of that name. */
  statNamed(sportId: number, name: string): SportStat | undefined;
  /** The sports whose definitions list a stat id (one, where ids are unique across sports). */
  sportsOfStat(statId: number): readonly number[];
}

/**
 * `base` with the `stats` records of a batch laid over it, by sport (undefined: the batch removed
 * the sport's record), so a record earlier in a batch holds for the records after it.
 */
export function layeredStats(base: StatLookup, planned: ReadonlyMap<number, StatTable | undefined>): StatLookup {
  if (planned.size === 0) return base;
  return {
    statOf: (sportId, statId) =>
      planned.has(sportId) ? planned.get(sportId)?.stat(statId) : base.statOf(sportId, statId),
    statNamed: (sportId, name) =>
      planned.has(sportId) ? planned.get(sportId)?.named(name) : base.statNamed(sportId, name),
    sportsOfStat: (statId) => [
      ...base.sportsOfStat(statId).filter((sportId) => !planned.has(sportId)),
      ...[...planned].flatMap(([sportId, table]) => (table?.stat(statId) ? [sportId] : [])),
    ],
  };
}

/** A stat of a `stats` record whose id another sport's definitions list: its place in the record, and that sport. */
export interface StatIdClash {
  index: number;
  statId: number;
  sportId: number;
}

/**
 * The stats of a `stats` record whose ids another sport already defines, in `stats` (the catalog
 * as it stands before the record). Stat ids are unique across sports: a season summed over a
 * league's sport ids names each value by its id alone (`Catalog.statById`).
 */
export function statIdClashes(record: StatsEntry, stats: StatLookup): StatIdClash[] {
  const out: StatIdClash[] = [];
  record.stats.forEach((s, index) => {
    const other = stats.sportsOfStat(s.id).find((sportId) => sportId !== record.sport_id);
    if (other !== undefined) out.push({ index, statId: s.id, sportId: other });
  });
  return out;
}

/** A `stats` record a catalog batch leaves out, and an id of it that another sport keeps. */
export interface StatsHeldBack {
  sportId: number;
  clash: StatIdClash;
}

/**
 * `records` as a ledger takes them over `held` (the committed catalog, `textOf` its records' JSON):
 * a `stats` record that differs from the held one and lists an id another sport still lists once
 * the batch's other records are laid over it is left out, its sport keeping its held stats. A store
 * may hold such a clash from before stat ids were unique across sports, and a batch the ledger
 * refuses as a whole would stop a start. The records written go first when they free an id another
 * one takes, as the ledger checks each against those before it.
 */
export function writableStats(
  records: readonly CatalogRecord[],
  held: StatLookup & { textOf(key: string): string | undefined },
): { records: CatalogRecord[]; heldBack: StatsHeldBack[] } {
  const changed = (r: CatalogRecord): r is StatsEntry =>
    r.type === 'stats' && held.textOf(catalogKey(r)) !== catalogText(r);
  let pending = records.filter(changed);
  const planned = new Map<number, StatTable>();
  const taken: StatsEntry[] = [];
  for (let before = -1; pending.length !== before;) {
    before = pending.length;
    pending = pending.filter((r) => {
      if (statIdClashes(r, layeredStats(held, planned)).length > 0) return true;
      planned.set(r.sport_id, new StatTable(r));
      taken.push(r);
      return false;
    });
  }
  return {
    records: [...records.filter((r) => !changed(r)), ...taken],
    heldBack: pending.map((r) => ({ sportId: r.sport_id, clash: statIdClashes(r, layeredStats(held, planned))[0]! })),
  };
}
