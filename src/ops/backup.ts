import { randomUUID } from 'node:crypto';
import { existsSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import type { EpochGap } from '../changelog/change.ts';
import { CHANGE_SQL } from '../store/sql/changes.ts';
import { META_SQL } from '../store/sql/meta.ts';
import { EPOCH_GAPS_META, EPOCH_META, type Store } from '../store/store.ts';

/**
 * Meta key a backup writes into its copy: the epoch of the log it copied. A store whose epoch still
 * equals it has not been started since it was restored.
 */
export const BACKUP_OF_META = 'backup_of_epoch';
const BACKUP_AT_META = 'backup_taken_at';

/**
 * Ids a restored log skips before its epoch's first row: more than the server it was copied from
 * could commit after the copy (a year at 30,000 changes a second), so none of that server's cursors
 * lands among the new epoch's ids; 9,000 restores stay below 2^53.
 */
export const EPOCH_GAP = 1_000_000_000_000;

/** Pages per step of the online backup: all of them, so the copy is one consistent snapshot. */
const ALL_PAGES = 0x7fffffff;

export interface BackupResult {
  file: string;
  bytes: number;
  /** The newest change id in the copy. */
  headId: number;
  /** The epoch of the log copied; a restored copy begins a new one on its first start. */
  epoch: string | undefined;
}

/**
 * Copies the store of `dataDir` (its SQLite file `storeFile`, named by the caller so that ops/
 * imports no backend) into the file `out` while a server may be running on it and writing: SQLite's
 * online backup API, all pages in one step under one read transaction, so the copy is the
 * store exactly as it was after one commit (the server's writers are not blocked in WAL mode). The
 * copy is written beside `out` and renamed into place when complete, so `out` never holds half a
 * backup; it is one self-contained file (no write-ahead log). Refuses to overwrite `out`.
 */
export async function backupStore(dataDir: string, storeFile: string, out: string): Promise<BackupResult> {
  const source = join(dataDir, storeFile);
  if (!existsSync(source)) throw new Error(`no store in ${dataDir} (${source} does not exist)`);
  if (existsSync(out)) throw new Error(`${out} exists; a backup never overwrites a file`);
  const partial = `${out}.partial`;
  rmSync(partial, { force: true });
  const db = new Database(source, { readonly: true, fileMustExist: true });
  try {
    db.pragma('busy_timeout = 5000');
    await db.backup(partial, { progress: () => ALL_PAGES });
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  } finally {
    db.close();
  }
  let result: Omit<BackupResult, 'file' | 'bytes'>;
  const copy = new Database(partial);
  try {
    const meta = (key: string) => (copy.prepare(META_SQL.read.sqlite).get(key) as { value: string } | undefined)?.value;
    const setMeta = copy.prepare(META_SQL.write.sqlite);
    const epoch = meta(EPOCH_META);
    setMeta.run(BACKUP_OF_META, epoch ?? '');
    setMeta.run(BACKUP_AT_META, new Date().toISOString());
    const headId = (copy.prepare(CHANGE_SQL.head.sqlite).pluck().get() as number | null) ?? 0;
    // One file that is complete by itself: no write-ahead log beside it.
    copy.pragma('journal_mode = DELETE');
    result = { headId, epoch };
  } catch (err) {
    copy.close();
    rmSync(partial, { force: true });
    throw err;
  }
  copy.close();
  renameSync(partial, out);
  return { file: out, bytes: statSync(out).size, ...result };
}

/**
 * On the first start of a restored backup, begins a new log epoch: ids past the copy's head may
 * already have been handed out by the server it was copied from, with other rows behind them, so a
 * client holding a position from that server must see that it no longer applies. Stream positions
 * carry the epoch; REST cursors are bare ids, so the new epoch's ids also jump `EPOCH_GAP` past the
 * copy's head, and the gap is recorded (`epochGaps`) for the delta feeds to refuse cursors inside it.
 * The gap is written before the epoch: a start stopped between the two writes it again, in place.
 * Later starts keep both. Returns the epochs and the gap when it began one.
 */
export async function beginEpochIfRestored(
  store: Pick<Store, 'getMeta' | 'setMeta' | 'lastRowId'>,
): Promise<{ previous: string; epoch: string; gap: EpochGap } | undefined> {
  const copiedFrom = await store.getMeta(BACKUP_OF_META);
  const current = await store.getMeta(EPOCH_META);
  if (copiedFrom === undefined || current === undefined || current !== copiedFrom) return undefined;
  const epoch = randomUUID();
  const from = await store.lastRowId();
  const gap = { from, to: from + EPOCH_GAP, epoch };
  const earlier = (await epochGaps(store)).filter((g) => g.from < from);
  await store.setMeta(EPOCH_GAPS_META, JSON.stringify([...earlier, gap]));
  await store.setMeta(EPOCH_META, epoch);
  return { previous: current, epoch, gap };
}

/**
 * On the first start of an empty store, begins the log's ids past a base read off the clock (epoch
 * milliseconds × 1,000, a safe integer until the 2250s), recorded as a gap from 0 like a restore's.
 * A data directory emptied and started again would otherwise hand out ids from 1 again, so a client
 * still holding a cursor of the earlier log there would be served other rows under it; with the
 * base, every id of a new log lies above every id an earlier one on the host handed out (a log
 * commits fewer than 1,000 changes a millisecond), and an old cursor is refused. A store that has
 * rows, an epoch or gaps already is left as it is, so a log begun before this rule keeps its ids.
 */
export async function beginFreshLog(
  store: Pick<Store, 'getMeta' | 'setMeta' | 'lastRowId'>,
  nowMs: number,
): Promise<EpochGap | undefined> {
  if ((await store.lastRowId()) !== 0) return undefined;
  if ((await store.getMeta(EPOCH_META)) !== undefined) return undefined;
  if ((await epochGaps(store)).length > 0) return undefined;
  const epoch = randomUUID();
  const gap = { from: 0, to: Math.floor(nowMs) * FRESH_IDS_PER_MS, epoch };
  await store.setMeta(EPOCH_GAPS_META, JSON.stringify([gap]));
  await store.setMeta(EPOCH_META, epoch);
  return gap;
}

/** Ids a new log's base advances per millisecond of the clock (see `beginFreshLog`). */
const FRESH_IDS_PER_MS = 1_000;

/** The gaps restores and fresh starts left in the log's ids, oldest first. */
export async function epochGaps(store: Pick<Store, 'getMeta'>): Promise<EpochGap[]> {
  const raw = await store.getMeta(EPOCH_GAPS_META);
  return raw === undefined ? [] : (JSON.parse(raw) as EpochGap[]);
}
