import { type ChangeRecord, futuresRowKey, type StatValue } from '../changelog/change.ts';
import { type SeasonStats, seasonKey } from '../domain/season-stats.ts';

/**
 * Retention with compaction: the change log below a boundary keeps only what its readers need
 * forever, the way a compacted log keeps the last value of each key. Every store applies the same
 * rules (`compactionKey`, `dropsRow`), a chunk of ids at a time, in its own transaction.
 *
 * - The boundary is the first row committed at or after the cutoff (now minus the retention): every
 *   row from it on is kept whole, so a delta cursor at or after `oldestId - 1` misses nothing.
 * - A row is dropped only if its `at` is also before the cutoff, so every row describing a time at
 *   or after `sinceMs` is kept: history reads bounded by it never see a hole.
 * - Below the boundary, of each key: a price keeps its first row (openers), its last row at or
 *   before its event's scheduled start (closing) and its last row (its current state, which a start
 *   and an archived event's read need; see `dropsRow`); an event keeps its last header row and its last score row
 *   (the final ones once it is over); a futures price and a futures board keep their last row; a
 *   box-score cell (event, team, player, stat) keeps its last stat row, and a player's first stat
 *   row (it names the player) stays, so the box folded from what is left is the box as it was.
 *   Plays, futures settlements and catalog rows are never dropped: plays are numbered by their rank,
 *   and catalog records name what rows of any age refer to.
 */

/** One step of compaction: a chunk of at most `maxRows` ids below the boundary of `cutoffMs`. */
export interface CompactStep {
  /** Rows committed before this time (epoch ms) are past the retention. */
  cutoffMs: number;
  /** Most ids one step (one transaction) looks at. */
  maxRows: number;
}

export interface CompactResult {
  /** Ids the step looked at, and rows it dropped. */
  scanned: number;
  dropped: number;
  /** Every row with an id at or above it is kept (see RetainedLog). */
  oldestId: number;
  /** More ids below the boundary, or archived events ready to pack, wait for a later step. */
  more: boolean;
}

/** What a store still holds of its log after compaction. */
export interface RetainedLog {
  /** Every row with an id at or above this is kept (1 before anything was compacted). */
  oldestId: number;
  /** Every row whose `at` is at or after this time (epoch ms) is kept; undefined while nothing was dropped. */
  sinceMs: number | undefined;
}

/** Meta keys of the retained log. */
export const RETAINED_ID_META = 'retention_oldest_id';
export const RETAINED_SINCE_META = 'retention_since_ms';

/** The key whose rows one keep rule looks at together, or undefined for a row that is never dropped. */
export function compactionKey(
  row: Pick<ChangeRecord, 'kind' | 'event_id' | 'price_id' | 'market_id' | 'affiliate_id' | 'payload'>,
): string | undefined {
  switch (row.kind) {
    case 'price':
      return `price|${row.price_id}`;
    case 'event':
    case 'score':
      return `${row.kind}|${row.event_id}`;
    case 'futures_board':
    case 'futures_price':
      return `${row.event_id}|${futuresRowKey(row)}`;
    case 'stat': {
      // A player's first row names the player: it stays, as the box would lose the name without it.
      const v = JSON.parse(row.payload) as StatValue;
      if (v.display_name !== undefined) return undefined;
      return `stat|${row.event_id}|${v.team_id}|${v.player_id ?? ''}|${v.stat_id}`;
    }
    case 'season':
      // The newest record of a team's season stays: the routes serve it however old it is.
      return `season|${seasonKey(JSON.parse(row.payload) as SeasonStats)}`;
    case 'play':
    case 'futures_settlement':
    case 'catalog':
      // Catalog rows are never dropped: a sport, book or team is named by rows of any age.
      return undefined;
    default:
      return assertNever(row.kind);
  }
}

/** What a step finds around one row of a compacted key (see `dropsRow`). */
export interface RowContext {
  /** The step's cutoff as 24-character UTC ISO: rows describing a time at or after it stay. */
  cutoffAt: string;
  /** A newer row of the same key lies below the boundary (this one is not the key's last). */
  superseded: boolean;
  /** Prices: this is the price's first row (its opener); false for any other kind. */
  first: boolean;
  /** Prices: the event's scheduled start (24-character UTC ISO), undefined when unknown. */
  startAt: string | undefined;
  /** Prices: a newer row of the price also describes a time at or before the start. */
  laterBeforeStart: boolean;
}

/**
 * Whether a step drops a row (one with a compaction key, below the step's end). A step judges the
 * rows of its chunk and, for each key the chunk holds, the rows earlier steps kept of that key: a
 * key's last row below the boundary stays until a newer one falls below it.
 */
export function dropsRow(row: Pick<ChangeRecord, 'kind' | 'at'>, c: RowContext): boolean {
  if (row.at >= c.cutoffAt || !c.superseded) return false;
  if (row.kind !== 'price') return true;
  if (c.first) return false;
  // The closing row: the last one at or before the scheduled start.
  return !(c.startAt !== undefined && row.at <= c.startAt && !c.laterBeforeStart);
}

/** An event's scheduled start as the closing reads compare it (see openers-closing.ts). */
export function startAtOf(eventDate: string): string | undefined {
  const ms = Date.parse(eventDate);
  return Number.isNaN(ms) ? undefined : new Date(ms).toISOString();
}

function assertNever(kind: never): never {
  throw new Error(`unknown change kind: ${String(kind)}`);
}
