import type { Store } from '../store/store.ts';
import { type ApplyObserver, applyRows, loadBoard, type LoadProgress } from './apply.ts';
import type { Board } from './board.ts';

export interface LoadOptions {
  /**
   * Changes committed at or after this time (epoch ms) are applied again after the load, through
   * `observe`, so that the delayed views know what they replaced across a restart.
   */
  replaySinceMs?: number;
  observe?: ApplyObserver;
  /** Headers of archived events scheduled since this time (epoch ms) are kept on the board. */
  archivedSinceMs: number;
  /**
   * The board's head is raised to this when it is past the log's last row: a restored or fresh log's
   * gap (`EpochGap.to`), so the head readers hand out is already the new epoch's.
   */
  idsAbove?: number | undefined;
  /** Told how far the load is at each part and every few thousand rows (the start's progress lines). */
  onProgress?: (p: LoadProgress) => void;
}

/** What a load found beside the board: where the writer's counters go on from. */
export interface LoadedLog {
  epoch: string;
  /** committed_ms of the head row (0 for an empty log). */
  headCommittedMs: number;
  /** The highest market record id and price id the log holds. */
  maxMarketId: number;
  maxPriceId: number;
}

/** Rows read per page when a load replays the recent log. */
const REPLAY_PAGE = 5000;

/** The search of the events to replay asks for its id range in this many parts. */
const SEARCH_PARTS = 100;

/**
 * The events with a row from `since` to the log's end described at or after `ms`, searched in parts
 * of the id range and told to `progress` before each: one search of a log a first start's
 * background part had just grown took seconds with no line. The parts are a share of the range, so
 * a jump of the ids (a restore) adds no search; the last one reaches past `head`, as a writer may
 * have gone on (an API node's load).
 */
async function eventsDescribedSince(
  store: Store,
  ms: number,
  since: number,
  head: number,
  progress: ((p: LoadProgress) => void) | undefined,
): Promise<string[]> {
  const events = new Set<string>();
  const step = Math.ceil((head - since + 1) / SEARCH_PARTS);
  for (let from = since; ; from += step) {
    progress?.({ part: 'recent events', done: from - since, total: head - since + 1 });
    const last = from + step > head;
    for (const id of await store.eventsDescribedSince(ms, from, last ? Number.MAX_SAFE_INTEGER : from + step - 1))
      events.add(id);
    if (last) return [...events];
  }
}

/**
 * Loads the committed state of `store` into `board`: the one load of a restarted writer
 * (Ledger.open) and of an API node, which has no ledger. The board is loaded as it was before the
 * recent changes (`replaySinceMs`), which are then applied again as they were first, so that the
 * observer sees them; only the events with such a change are, the others are loaded as they are now.
 */
export async function loadCommitted(store: Store, board: Board, opts: LoadOptions): Promise<LoadedLog> {
  // By described time, not commit time: a history fill commits days of the past within minutes,
  // and a restart soon after it replayed the whole fill (10-60 s) though no view hides any of it.
  const since = opts.replaySinceMs === undefined ? undefined : await store.firstIdDescribedSince(opts.replaySinceMs);
  const head = since === undefined ? undefined : await store.lastRowId();
  // Only the events changed within the longest delay are loaded as they were before it and their
  // changes applied again as they were first; every other one is loaded as it is now. The views
  // keep nothing of an event without a recent change, so both give them the same: but a restart
  // within minutes of a first start's background fill replayed every row of it (22 s).
  const recent =
    since === undefined || head === undefined || opts.replaySinceMs === undefined
      ? undefined
      : await eventsDescribedSince(store, opts.replaySinceMs, since, head, opts.onProgress);
  const archivedSince = new Date(opts.archivedSinceMs).toISOString();
  const loaded = await store.load(since === undefined ? undefined : since - 1, {
    archivedSince,
    ...(recent ? { asOfOnly: recent } : {}),
  });
  await loadBoard(board, loaded, opts.onProgress);
  let headCommittedMs = loaded.headCommittedMs;
  let maxPriceId = loaded.maxPriceId;
  const from = board.head;
  for (let after = from; recent !== undefined && recent.length > 0;) {
    opts.onProgress?.({ part: 'recent changes', done: after - from, total: (head ?? from) - from });
    const rows = await store.readChanges({
      pricesOnly: false,
      afterId: after,
      toId: Number.MAX_SAFE_INTEGER,
      limit: REPLAY_PAGE,
      eventIds: recent,
    });
    if (rows.length === 0) break;
    applyRows(board, rows, opts.observe);
    for (const r of rows) if (r.price_id !== null && r.price_id > maxPriceId) maxPriceId = r.price_id;
    after = rows[rows.length - 1]!.id;
  }
  if (head !== undefined) {
    // The other events' rows up to the head are in the load.
    board.head = Math.max(board.head, head);
    headCommittedMs = (await store.committedMsAt(head)) ?? headCommittedMs;
  }
  if (opts.idsAbove !== undefined && opts.idsAbove > board.head) board.head = opts.idsAbove;
  const maxMarketId = loaded.markets.reduce((max, m) => Math.max(max, m.id), 0);
  return { epoch: loaded.epoch, headCommittedMs, maxMarketId, maxPriceId };
}
