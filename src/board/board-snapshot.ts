import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { deserialize, serialize } from 'node:v8';
import { EPOCH_META, type Store } from '../store/store.ts';
import type { Board } from './board.ts';
import type { DelayedViews } from './delayed-views.ts';
import type { LoadedLog } from './load.ts';
import { decodeBoard, type EncodedBoard, encodeBoard } from './snapshot-codec.ts';

/**
 * A board saved at a clean shutdown, taken back at the next start in place of the load from the
 * store (board/load.ts), when nothing has changed since: the same code (`version`), the same log
 * (epoch) at the same last row. It holds the board, the changes the delayed views keep (what a
 * load's replay of the recent log would keep of them), and where the writer's counters stand. A
 * snapshot is read once: the file is removed as it is read, so a run that ends without writing one
 * (a crash) leaves none to mislead the next start.
 */

/** The snapshot's file in a data directory. */
export const SNAPSHOT_FILE = 'board.snapshot';

interface Stamp {
  /** The code that wrote it (ops/version.ts's `codeVersion`). */
  version: string;
  /** The store's last row when it was written; the board's head may lie past it (a gap). */
  lastRowId: number;
  log: LoadedLog;
}

interface SnapshotFile extends EncodedBoard {
  stamp: Stamp;
}

export interface SaveSnapshot {
  board: Board;
  views: DelayedViews;
  /** Where the writer's counters stand (Ledger.counters). */
  log: LoadedLog;
  lastRowId: number;
  version: string;
}

/**
 * Writes the snapshot (aside, then renamed, so a half-written file is never read); returns its size
 * in bytes, or why none was written. Call with the writer stopped: no commit may run meanwhile.
 */
export async function saveBoardSnapshot(file: string, s: SaveSnapshot): Promise<number | string> {
  // Views moved on early (past their entry bound) no longer hold every change a replay would keep.
  if (s.views.forcedAdvances > 0) return 'the delayed views were moved on early; the next start loads the store';
  const encoded = encodeBoard(s.board, s.views.kept());
  const body = serialize({
    stamp: { version: s.version, lastRowId: s.lastRowId, log: s.log },
    ...encoded,
  } satisfies SnapshotFile);
  const part = `${file}.part`;
  try {
    await writeFile(part, body);
    await rename(part, file);
  } finally {
    await rm(part, { force: true });
  }
  return body.length;
}

export interface LoadSnapshot {
  board: Board;
  views: DelayedViews;
  store: Store;
  version: string;
  /** Headers of archived events scheduled before this time (epoch ms) are dropped, as a load leaves them out. */
  archivedSinceMs: number;
  /** As LoadOptions.idsAbove: the head is raised to this when it is past the log's last row. */
  idsAbove?: number | undefined;
}

/** What came of a start's look for a snapshot. */
export type SnapshotOutcome =
  | { loaded: LoadedLog; bytes: number }
  | { skipped: string }
  /** There was none. */
  | undefined;

/**
 * Fills the board and the views from the snapshot in `file` when it matches the store, and removes
 * the file. Any mismatch or defect leaves the board empty and says why: the caller loads the store.
 */
export async function loadBoardSnapshot(file: string, s: LoadSnapshot): Promise<SnapshotOutcome> {
  // A stop cut short while writing (a second signal, a kill) leaves the part it wrote: never read.
  await rm(`${file}.part`, { force: true });
  let body: Buffer;
  try {
    body = await readFile(file);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw err;
  }
  await rm(file, { force: true });
  try {
    const saved = deserialize(body) as Partial<SnapshotFile>;
    const stamp = saved.stamp;
    if (!stamp || !(saved.numbers instanceof Float64Array) || !Array.isArray(saved.strings))
      return { skipped: 'the board snapshot is not one this server reads' };
    if (stamp.version !== s.version) return { skipped: 'the board snapshot was written by other code' };
    if (stamp.log.epoch !== (await s.store.getMeta(EPOCH_META)))
      return { skipped: 'the board snapshot belongs to another change log' };
    if (stamp.lastRowId !== (await s.store.lastRowId()))
      return { skipped: 'the change log moved on since the board snapshot was written' };
    const kept = decodeBoard({ numbers: saved.numbers, strings: saved.strings }, s.board);
    const archivedSince = new Date(s.archivedSinceMs).toISOString();
    for (const [id, info] of s.board.archivedHeaders) {
      if (info.event_date < archivedSince) s.board.archivedHeaders.delete(id);
    }
    if (s.idsAbove !== undefined && s.idsAbove > s.board.head) s.board.head = s.idsAbove;
    s.views.restore(kept);
    return { loaded: stamp.log, bytes: body.length };
  } catch (err) {
    s.board.reset();
    return { skipped: `the board snapshot could not be read (${err instanceof Error ? err.message : String(err)})` };
  }
}
