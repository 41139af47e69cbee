import type { CatalogRecord } from '../catalog/records.ts';
import type { ChangeRecord } from '../changelog/change.ts';
import type { RecordedBatch } from '../changelog/recording.ts';
import type { PlayInput } from '../domain/plays.ts';
import type { FuturesHeader } from '../domain/futures.ts';
import type { SeasonStats } from '../domain/season-stats.ts';
import type { EventInfo, ParticipantType, PriceExtras, Score } from '../domain/types.ts';

/**
 * What a feed (simulator, ingest, replay) hands the ledger. A feed never writes state itself:
 * it describes what happened and the ledger decides ids, change types and flags.
 */

/** Create or replace an event's header (teams, schedule, rotation numbers, source ids). */
export interface EventUpsert {
  kind: 'event';
  event: Omit<EventInfo, 'score' | 'live_game_state'>;
}

/** Replace an event's score (and optionally its live game state; null clears it). */
export interface ScoreUpdate {
  kind: 'score';
  event_id: string;
  score: Score;
  live_game_state?: Record<string, unknown> | null;
}

/**
 * One sportsbook's price on one line of one participant of one market.
 *
 * - `is_main_line: true` makes this line the book's main line for that participant; the ledger
 *   clears the flag on the previous main line in the same commit, at the same timestamp.
 *   Omitted keeps the line's current flag (false for a new line).
 * - `closed: true` closes the price (closed_at = the batch time); a later update on a closed
 *   price reopens it.
 * - `price` is American odds; 0.0001 is the off-board sentinel.
 */
export interface PriceUpdate extends PriceExtras {
  kind: 'price';
  event_id: string;
  market_id: number;
  period_id: number;
  participant_id: number;
  participant_type: ParticipantType;
  participant_name: string;
  /** Spread or total as a string; '' for moneylines. */
  line: string;
  affiliate_id: number;
  price: number;
  is_main_line?: boolean;
  closed?: boolean;
  /**
   * Ids a feed keeps from its own source (the upstream mirror: another server's ids), so a client
   * holds the same ids on both. Omitted, the ledger makes them: the price and market-instance ids
   * from its counters, the line id from what identifies the line (`lineId`). A given id is used
   * only where the ledger makes a new price, market or line; the feed keeps them unique.
   */
  price_id?: number;
  market_instance_id?: number;
  line_id?: string;
  /**
   * The batch's time is part of the quote: a record repeating the held quote at another time is
   * written, not skipped (a mirror keeps its source's updated_at, which moved when the source's
   * price went away and came back between two of its reads).
   */
  keep_time?: boolean;
}

/**
 * One play of a live game. The ledger gives it the event's next sequence number (a `sequence` the
 * feed gives must be that one) and writes a stat row for every box-score value its credits change;
 * a feed sends the score the play leads to in the same batch.
 */
export interface PlayUpdate {
  kind: 'play';
  event_id: string;
  play: PlayInput;
}

/** One value of a box score as a source gives it: the stat's id (the sport's) and its value. */
export interface BoxValue {
  stat_id: number;
  /** A number written as text, as the spec's stat values are. */
  value: string;
}

/**
 * Sets values of an event's box score as a source gives them (a mirror reads them from another
 * server's box-score routes, which show values, not the plays' credits). The ledger writes a stat
 * row for each value that differs from the one held; a value not named keeps the one held (the log
 * has no row that takes a value away). A player's first value says who the player is. Team and
 * player values are taken as given: they need not add up as the credits of plays make them.
 */
export interface BoxScoreUpdate {
  kind: 'box_score';
  event_id: string;
  teams: { team_id: number; stats: BoxValue[] }[];
  /** In the order the players first appeared (the box lists each team's players in that order). */
  players: { player_id: number; team_id: number; display_name: string; position: string; stats: BoxValue[] }[];
  /**
   * The box as given is the event's whole box: a value held and not named is taken away (a stat
   * row with `removed`). Without it a value not named keeps the one held.
   */
  whole?: boolean;
}

/** Opens a futures board, or replaces its header (name, dates, participants) while it is open. */
export interface FuturesBoardUpsert {
  kind: 'futures_board';
  board: FuturesHeader;
}

/** One book's American odds on one participant of a futures board's market. */
export interface FuturesPriceUpdate {
  kind: 'futures_price';
  event_id: string;
  market_id: number;
  participant_id: number;
  affiliate_id: number;
  price: number;
}

/** Decides a futures board: its winner, or void; its prices close at the batch time. */
export interface FuturesSettle {
  kind: 'futures_settlement';
  event_id: string;
  state: 'settled' | 'void';
  /** The winner when settled; null when void. */
  winner_participant_id: number | null;
}

/**
 * A catalog record (sport, book, market definition, league, team, roster): it replaces the record
 * of its key. One equal to the current record writes nothing, so a feed may send its whole catalog
 * again and only what changed becomes rows.
 */
export interface CatalogUpdate {
  kind: 'catalog';
  record: CatalogRecord;
}

/**
 * A team's season aggregate of one year and season type as a source publishes it, whole: it
 * replaces the record held for that key (one equal to it writes nothing). The season routes serve
 * it in place of the sums of the games held.
 */
export interface SeasonStatsUpdate extends SeasonStats {
  kind: 'season_stats';
}

export type Update =
  | EventUpsert
  | ScoreUpdate
  | PriceUpdate
  | PlayUpdate
  | BoxScoreUpdate
  | FuturesBoardUpsert
  | FuturesPriceUpdate
  | FuturesSettle
  | CatalogUpdate
  | SeasonStatsUpdate;

export interface UpdateBatch {
  /** ISO 8601 time the batch describes; the simulator back-fills history with past times. */
  at: string;
  updates: Update[];
  /**
   * A feed's name for the batch (ingest): kept in the store with the batch's rows, so the same
   * name sent again, before or after a restart, applies nothing a second time.
   */
  batch_id?: string;
}

/** What became of a named batch: committed now, or already committed before (nothing written). */
export interface BatchOutcome {
  applied: boolean;
  /** The log's head once the batch was committed (the first time, for a repeated one). */
  headId: number;
}

/**
 * The one way a feed reaches the ledger. `apply` resolves once the batch is committed and visible,
 * and rejects when it is refused (invalid, the store failed, or too many batches waiting): a feed
 * awaits each batch, which is how it learns of back-pressure.
 */
export interface LedgerSink {
  apply(batch: UpdateBatch): Promise<void>;
}

/**
 * The way a replay reaches the ledger: rows of a recorded change log, committed as they were
 * recorded (ids, times, payloads), since only then do they read back byte for byte. Resolves once
 * they are committed and visible; rejects, with nothing written, when they do not continue the log.
 * `batch`, a named batch the rows end (or, with none, one that changed nothing), is kept with them
 * unless the store keeps its id already.
 */
export interface RecordedSink {
  /** The newest id of the log (a replay skips rows at or below it). */
  readonly headId: number;
  applyRecorded(rows: readonly ChangeRecord[], batch?: RecordedBatch): Promise<void>;
}
