import type { ChangeKind, ChangeRecord } from '../changelog/change.ts';
import type { CompactResult, CompactStep, RetainedLog } from './retention.ts';

export type { ChangeKind, ChangeRecord, CompactResult, CompactStep, RetainedLog };

/**
 * The Store: the system of record. Only the ledger commits to it; routes read history from it.
 * Every method returns a Promise, whatever the backend: SQLite (sqlite/, the default) answers at
 * once, a network database later, and callers are written for both.
 *
 * Contract (test/contract/store.contract.ts runs it against every implementation):
 * - `commit` is atomic: after it resolves every row of the batch is readable; after it rejects none is.
 *   It refuses a batch with an id at or below the head or an id twice (a reader whose cursor is at
 *   the head would never see a row written below it), and one that adds a market instance already kept.
 * - Ids are the ledger's; the store keeps them and never assigns its own. Reads return rows in id order.
 * - `committed_ms` never decreases along the ids (the ledger guarantees it), which the time lookups rely on.
 * - The log has an epoch, made when the log begins (the first `load` of an empty store) and kept
 *   until the log is reset or restored.
 * - `compact` drops rows past the retention by the rules of retention.ts, a chunk per call, and
 *   `retained` says what is still whole; `archive` takes finished events off what `load` returns.
 * - An archived event whose rows all lie below the retained boundary and the head is packed by a
 *   later `compact` (one event at a time, packed-rows.ts): its rows leave the log (`readChanges`,
 *   which no cursor below the boundary reaches), in one call or over several (SQLite: `maxRows` a
 *   call), and every other read of them (plays, stats, the archived event, the HistoryStore) gives
 *   what it gave before, between those calls too.
 */

export interface EventRecord {
  event_id: string;
  sport_id: number;
  event_date: string;
  /** JSON of the EventInfo (header, score, live state). */
  info: string;
  change_id: number;
}

/** A market instance: its integer id is the `id` of a Market inside an event. */
export interface MarketRecord {
  id: number;
  event_id: string;
  market_id: number;
  period_id: number;
}

export interface Commit {
  changes: ChangeRecord[];
  /** Each replaces the kept event of its event_id. */
  events: EventRecord[];
  /** New market instances only. */
  markets: MarketRecord[];
  /**
   * The batch id a feed gave (ingest), kept in the same transaction as the rows: once the commit
   * resolves `batchHead` finds it, after a restart too; if it rejects, the id is not kept either.
   * A batch id already kept refuses the commit.
   */
  batch?: BatchMark;
}

/** What a commit writes beside its change rows: an open commit's `finish` takes it. */
export type CommitRest = Omit<Commit, 'changes'>;

/**
 * A commit whose change rows are handed over a part at a time, as they are planned
 * (`Store.openCommit`). It writes what `commit` of every row added, in the order added, with the
 * `CommitRest` given to `finish`, would write, and is refused as that commit would be: atomic,
 * nothing written unless `finish` resolves. Exactly one of `finish` and `abort` ends it.
 */
export interface OpenCommit {
  /**
   * Whether the rows added go to the store at once (PostgreSQL's COPY, sent as they come), so
   * that the store works on them while the caller plans the next: then the caller gives the
   * event loop a turn between parts. Otherwise they are only gathered until `finish`.
   */
  readonly streams: boolean;
  /** The next change rows, in id order after those added before. */
  add(rows: readonly ChangeRecord[]): void;
  /** Commits every row added with `rest`; rejects, with nothing written, as `commit` would. */
  finish(rest: CommitRest): Promise<void>;
  /** Drops the commit: nothing added is written. Resolves once the store may commit again; never rejects. */
  abort(): Promise<void>;
}

/** A named batch as kept: its id, the head of the log once it was committed, and when. */
export interface BatchMark {
  id: string;
  headId: number;
  committedMs: number;
}

export interface LoadedState {
  /** The log's epoch (see LogPosition). */
  epoch: string;
  events: EventRecord[];
  markets: MarketRecord[];
  /**
   * The newest change row of every price (the current state of each market_line_price), in price id
   * order. Read as it is consumed, a page at a time: a store of millions of rows loads without
   * holding them all at once (held whole, a simulator's day of them took more than `npm start`'s heap).
   * Read each source once, before the next store call.
   */
  latestPrices: AsyncIterable<ChangeRecord>;
  /** The largest price id at or below the loaded head (0 with none): where new price ids continue. */
  maxPriceId: number;
  /**
   * Futures rows that make up the boards' current state, in id order: the newest futures_board and
   * futures_settlement row of each board, and the newest futures_price row of each book's price on
   * each participant.
   */
  futures: ChangeRecord[];
  /**
   * Every catalog row of the whole log, in id order, whatever `uptoId` is (reference data is served
   * as it is now): folded, the newest record of each key is the catalog.
   */
  catalog: ChangeRecord[];
  /** Every season row of the log, in id order, whatever `uptoId` is: the loader takes those up to its head. */
  seasonRecords: ChangeRecord[];
  headId: number;
  /** committed_ms of the head row, 0 on an empty store. */
  headCommittedMs: number;
  /** The number of play rows of each event that has any (the last play's sequence). */
  playCounts: { event_id: string; plays: number }[];
  /**
   * The newest stat row of each box-score value (event, team, player, stat), each event's rows
   * together, in the order of the values' first rows: folded, they give each event's box score,
   * its players and stats in the order every row would give. Paged as latestPrices.
   */
  statRows: AsyncIterable<ChangeRecord>;
  /**
   * Archived events (see `archive`) are left out of everything above. Here: the headers of those
   * scheduled at or after `LoadOptions.archivedSince` (a feed resuming must know they are over),
   * and the season totals of every archived game.
   */
  archived: { events: EventRecord[]; seasonTotals: SeasonTotalsRecord[] };
}

export interface LoadOptions {
  /** The earliest scheduled start (24-character UTC ISO) of an archived event whose header is loaded. */
  archivedSince?: string;
  /**
   * With `uptoId` below the head: only these events (and futures boards) are loaded as of
   * `uptoId`, every other one as of the head, so that a restart replays the rows of the recently
   * changed events only. `headId` stays `uptoId`; `maxPriceId` is then the whole log's.
   */
  asOfOnly?: readonly string[];
}

/** The summed box scores of the archived games of one season key (see SeasonArchive). */
export interface SeasonTotalsRecord {
  key: string;
  /** JSON, written and read by the board's season archive only. */
  body: string;
}

/** Events leaving the board, and the season totals that now count them, written at once. */
export interface ArchiveCommit {
  eventIds: string[];
  archivedMs: number;
  /** Each replaces the kept totals of its key. */
  seasonTotals: SeasonTotalsRecord[];
}

/** What a read of one archived event needs: the pieces `load` gives of every event on the board. */
export interface ArchivedEvent extends Pick<LoadedState, 'markets' | 'playCounts'> {
  event: EventRecord;
  /** One event's rows: few enough to hand over whole. */
  latestPrices: ChangeRecord[];
  statRows: ChangeRecord[];
}

export interface HighestIds {
  priceId: number;
  marketId: number;
}

export interface ArchivedMark {
  eventId: string;
  archivedMs: number;
}

/** A read of change rows after a cursor, in id order. */
export interface ChangeQuery {
  /** Only price rows (the markets delta) or every kind (the event delta). */
  pricesOnly: boolean;
  afterId: number;
  /** Highest id to look at (the head when the read began); bounds the scan. */
  toId: number;
  limit: number;
  sportId?: number;
  eventId?: string;
  /** Rows of these events only; an empty list matches nothing. */
  eventIds?: readonly string[];
  /** Price rows of these books, markets and periods only (a row without one never matches); an empty list matches nothing. */
  affiliateIds?: readonly number[];
  marketIds?: readonly number[];
  periodIds?: readonly number[];
}

export interface PayloadBytes {
  bytes: Buffer;
  count: number;
  /** Id of the last row read (0 when none). */
  lastRowId: number;
  /** Another matching row follows at or below the query's toId. */
  more: boolean;
  /**
   * Set when `bytes` are lent from memory the store reuses: call it once they have been written
   * out or dropped, and never read them after. Without it the bytes are the caller's.
   */
  release?: () => void;
}

export type PriceRowSummary = Pick<
  ChangeRecord,
  'id' | 'sport_id' | 'event_id' | 'affiliate_id' | 'market_id' | 'payload'
> & { period_id: number };

export interface Store {
  /**
   * Reads everything needed to rebuild the Board after a restart; begins the log's epoch on an
   * empty store. With `uptoId` below the head: the state as it was after that change (events as of
   * their last header and score rows up to it, the newest row of every price and futures price up to it).
   */
  load(uptoId?: number, opts?: LoadOptions): Promise<LoadedState>;
  /** Writes one batch atomically: all of it or none of it. */
  commit(commit: Commit): Promise<void>;
  /**
   * A commit whose rows are handed over as they are planned (see OpenCommit); a store without one
   * of its own is given `gatheredCommit`'s (open-commit.ts), which calls `commit` at `finish`.
   * While one is open its caller commits nothing else (the ledger's queue runs one at a time).
   */
  openCommit?(): OpenCommit;
  /**
   * Runs `run` (a fill that no client reads yet: the history back-fill before the server listens)
   * with its commits grouped into fewer, larger transactions. Each commit stays atomic and is read
   * back at once by this process; it is durable once its group ends (a crash loses at most the last
   * group, which a restart fills again). When `run` throws or a group fails to end, the fill fails
   * and the open group may be lost with it: what the process built from it must go too (the server
   * does not start). One fill at a time.
   */
  fill<T>(run: () => Promise<T>): Promise<T>;
  readChanges(q: ChangeQuery): Promise<ChangeRecord[]>;
  /** The payloads of the same rows as readChanges joined by commas, in id order: the markets delta's read. */
  readPayloadBytes(q: ChangeQuery): Promise<PayloadBytes>;
  /** Every price row in (afterId, toId], oldest first, with what a delta filter looks at. */
  scanPriceRows(afterId: number, toId: number, each: (row: PriceRowSummary) => void): Promise<void>;
  /**
   * The payloads of an event's plays numbered `fromSequence` to `toSequence` (inclusive), newest
   * first, joined by commas (a page as served, without a string per play). The nth play row of an
   * event is its play number n: the ledger numbers them in commit order.
   */
  readPlays(eventId: string, fromSequence: number, toSequence: number): Promise<Buffer>;
  /** An event's stat rows with ids at or below `uptoId`, in id order (a delayed plan's box score). */
  readStats(eventId: string, uptoId: number): Promise<ChangeRecord[]>;
  /** committed_ms of the newest row with an id at or below `id`, or undefined. */
  committedMsAt(id: number): Promise<number | undefined>;
  /** The smallest change id committed at or after `ms`, or undefined when none is. */
  firstIdCommittedSince(ms: number): Promise<number | undefined>;
  /**
   * The smallest change id whose described time (`describedMs`: the earlier of its `at` and its
   * commit time) is at or after `ms`, or undefined when none is. Described times need not ascend
   * along the ids (a first fill's background part commits the past beside the live feed).
   */
  firstIdDescribedSince(ms: number): Promise<number | undefined>;
  /**
   * The events (and futures boards) with a row of an id from `fromId` to `toId` (both included)
   * whose described time is at or after `ms`. It may name a few more (rows described within a
   * second before `ms`), never fewer: a restart replays these events' rows, and replaying a quiet
   * event's changes no more. A load asks for its range in parts, to tell its progress between them.
   */
  eventsDescribedSince(ms: number, fromId: number, toId: number): Promise<string[]>;
  /**
   * One step of compaction (retention.ts): drops rows of a chunk of ids below the cutoff's boundary,
   * then packs one archived event ready for it; `more` while either has more to do.
   */
  compact(step: CompactStep): Promise<CompactResult>;
  /** What the log still holds whole after compaction. */
  retained(): Promise<RetainedLog>;
  /** Marks events archived and replaces season totals, atomically. */
  archive(commit: ArchiveCommit): Promise<void>;
  /** An archived event as `load` would have given it, or undefined when it is not archived. */
  readArchivedEvent(eventId: string): Promise<ArchivedEvent | undefined>;
  /** The id of the newest row in the log (0 when empty). */
  lastRowId(): Promise<number>;
  /**
   * How many change rows the log holds: what a start's load reads through, so what its time is told
   * by. An estimate may serve (PostgreSQL reads its statistics once it has them); a log that has
   * none yet, as a new one, is counted exactly.
   */
  rowCount(): Promise<number>;
  /**
   * The highest price id and market record id ever committed (0 when none), those of archived and
   * packed events included: where a writer that takes over from a board it followed goes on.
   */
  highestIds(): Promise<HighestIds>;
  /**
   * The events archived at or after `ms` (by the `archivedMs` of their ArchiveCommit), oldest first:
   * what the nodes that follow the writer take off their boards.
   */
  archivedSince(ms: number): Promise<ArchivedMark[]>;
  /** The head a commit named `batchId` left (`Commit.batch`), or undefined when none was committed. */
  batchHead(batchId: string): Promise<number | undefined>;
  getMeta(key: string): Promise<string | undefined>;
  setMeta(key: string, value: string): Promise<void>;
  close(): Promise<void>;
}

/** The meta key of the log's epoch. */
export const EPOCH_META = 'log_epoch';

/** The meta key of the ids restored logs skipped (JSON `EpochGap[]`, src/changelog/change.ts). */
export const EPOCH_GAPS_META = 'log_epoch_gaps';

/** Rows already in memory as the paged source `LoadedState` hands out. */
export async function* rowSource(rows: readonly ChangeRecord[]): AsyncGenerator<ChangeRecord> {
  yield* rows;
}
