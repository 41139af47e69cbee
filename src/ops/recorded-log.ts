import type { RecordingHeader } from '../changelog/recording.ts';
import { EPOCH_GAPS_META, EPOCH_META, type Store } from '../store/store.ts';
import { StartError } from './preflight.ts';

/** How a replay may treat a store that already holds rows. */
export interface ReplayTarget {
  /** Names the store in messages (`--data-dir ./data`, `the database`). */
  name: string;
  /** Rows already there are allowed when they are the same log (its epoch): the replay goes on above them. */
  append: boolean;
  /** The option that allows it, named in the refusal. */
  appendOption: string;
}

/**
 * Readies a store for a replay before its log is loaded. An empty one (no rows) takes the
 * recording's epoch and the gaps below its first row, so the replayed log is the recorded one: the
 * same ids under the same epoch, and the same cursors refused (the later gaps follow with
 * `finishRecordedLog`, as the ledger continues past the gap its start is given). A store with rows is
 * refused unless `append`, and then unless it holds the recorded log (same epoch) up to where the
 * recording starts. Returns the store's head.
 */
export async function adoptRecordedLog(
  store: Pick<Store, 'getMeta' | 'setMeta' | 'lastRowId'>,
  header: RecordingHeader,
  firstRowId: number | undefined,
  target: ReplayTarget,
): Promise<number> {
  const head = await store.lastRowId();
  if (head === 0) {
    if (header.from_id > 0) {
      throw new StartError(
        `the recording starts after change ${header.from_id} (record --from): an empty store takes a recording of the whole log`,
      );
    }
    const below = firstRowId ?? Number.POSITIVE_INFINITY;
    // Gaps before the epoch, as a restore writes them: a stop between the two writes them again.
    await store.setMeta(EPOCH_GAPS_META, JSON.stringify(header.gaps.filter((g) => g.to < below)));
    await store.setMeta(EPOCH_META, header.epoch);
    return 0;
  }
  if (!target.append) {
    throw new StartError(
      `${target.name} already holds a change log (up to change ${head}): replay into an empty store, or pass ${target.appendOption} to go on with the same log`,
    );
  }
  const epoch = await store.getMeta(EPOCH_META);
  if (epoch !== header.epoch) {
    throw new StartError(
      `${target.name} holds another change log (epoch ${epoch ?? 'none'}, the recording's ${header.epoch}): choose an empty store`,
    );
  }
  if (header.from_id > head) {
    throw new StartError(
      `the recording starts after change ${header.from_id} but ${target.name} ends at change ${head}: replay the changes between first`,
    );
  }
  return head;
}

/** Writes the recording's gaps whole once its rows are in (those past its first row among them). */
export async function finishRecordedLog(store: Pick<Store, 'setMeta'>, header: RecordingHeader): Promise<void> {
  await store.setMeta(EPOCH_GAPS_META, JSON.stringify(header.gaps));
}
