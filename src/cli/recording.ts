import { existsSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { RECORDING_FORMAT, RECORDING_VERSION, type RecordingHeader } from '../changelog/recording.ts';
import { compose, openLogSnapshot, type StoreTarget } from '../compose.ts';
import type { ServeConfig } from '../config.ts';
import { openRecording } from '../feeds/replay/recording-file.ts';
import { ReplayFeed, type ReplayResult } from '../feeds/replay/replay-feed.ts';
import { writeRecording, type WrittenRecording } from '../feeds/replay/recording-file.ts';
import { checkDataDir, checkReadableFile, StartError } from '../ops/preflight.ts';
import { adoptRecordedLog, finishRecordedLog } from '../ops/recorded-log.ts';
import { lockDataDir } from '../store/data-dir-lock.ts';

/** What `oddsbase record` wrote. */
export interface RecordResult extends WrittenRecording {
  header: RecordingHeader;
}

/**
 * Writes the change log of `target` after `fromId` to `out` (`oddsbase record`): a consistent
 * snapshot read beside a running server, or of a stopped store, never writing to it.
 */
export async function recordLog(
  target: StoreTarget,
  out: string,
  fromId: number,
  now: () => number = Date.now,
): Promise<RecordResult> {
  if (existsSync(out)) throw new StartError(`${out} exists: a recording never overwrites a file, choose another --out`);
  const folder = dirname(out);
  if (!existsSync(folder) || !statSync(folder).isDirectory()) {
    throw new StartError(`${folder} is not a directory: choose another --out`);
  }
  const snapshot = await openLogSnapshot(target);
  if (!snapshot) throw new StartError(`no store in ${target.dataDir}: check --data-dir (env DATA_DIR)`);
  try {
    if (snapshot.epoch === undefined) {
      throw new StartError(`the store has no change log yet: start a server on it first`);
    }
    if (fromId > snapshot.headId) {
      throw new StartError(`--from ${fromId} is past the log's head ${snapshot.headId}`);
    }
    const header: RecordingHeader = {
      format: RECORDING_FORMAT,
      version: RECORDING_VERSION,
      epoch: snapshot.epoch,
      gaps: snapshot.gaps,
      from_id: fromId,
      head_id: snapshot.headId,
      recorded_at: new Date(now()).toISOString(),
    };
    const written = await writeRecording(out, header, snapshot.entries(fromId)).catch((err: unknown) => {
      const code = (err as NodeJS.ErrnoException).code;
      // The file system refused the file (permissions, a read-only or full disk): the person picks another.
      if (code !== undefined && /^(EACCES|EPERM|EROFS|ENOSPC|EISDIR|ENOTDIR|ENOENT)$/.test(code)) {
        throw new StartError(`${out} cannot be written (${code}): choose another --out`);
      }
      throw err;
    });
    return { header, ...written };
  } finally {
    await snapshot.close();
  }
}

export interface ReplayIntoOptions {
  /** 0: as fast as the store commits; else the recorded timing divided by it. */
  speed: number;
  /** Allow a store that holds the same log already: the replay goes on above its head. */
  append: boolean;
  /** Stops the replay between two batches (a signal); what is committed stays. */
  signal?: AbortSignal;
  now?: () => number;
  sleep?: (ms: number, signal: AbortSignal) => Promise<void>;
  say?: (line: string) => void;
}

/**
 * Replays the recording `file` into the store of `config` (`oddsbase replay`) through the ledger, the
 * store's one writer, holding the data directory's lock (a server may not run on it meanwhile).
 */
export async function replayIntoStore(
  config: ServeConfig,
  file: string,
  opts: ReplayIntoOptions,
): Promise<ReplayResult & { headId: number }> {
  checkReadableFile(file, 'the recording file');
  if (config.databaseUrl === undefined) checkDataDir(config.dataDir);
  const lock = config.databaseUrl === undefined ? lockDataDir(config.dataDir, 'oddsbase replay') : undefined;
  try {
    const recording = await openRecording(file);
    try {
      const name = config.databaseUrl === undefined ? `the store in ${config.dataDir}` : 'the database';
      const services = await compose(config, {
        ...(opts.now ? { now: opts.now } : {}),
        prepareStore: async (store) => {
          await adoptRecordedLog(store, recording.header, recording.firstId, {
            name,
            append: opts.append,
            appendOption: '--append',
          });
        },
      });
      try {
        // Rows keep their recorded commit times, which retention would judge old at once: the
        // replay is written whole, and a server started on the store afterwards applies retention.
        await services.retention.stop();
        const say = opts.say;
        let shown = 0;
        const feed = new ReplayFeed({
          rows: recording.rows,
          sink: services.ledger,
          speed: opts.speed,
          ...(opts.now ? { now: opts.now } : {}),
          ...(opts.sleep ? { sleep: opts.sleep } : {}),
          onProgress: (rows, lastId) => {
            if (!say || rows - shown < 100_000) return;
            shown = rows;
            say(`replayed ${rows} changes (up to ${lastId})`);
          },
        });
        const stop = () => void feed.stop();
        opts.signal?.addEventListener('abort', stop, { once: true });
        // No client reads the store meanwhile: its commits are grouped as a history fill's are
        // (`Store.fill`); a failure may lose the open group, which --append replays again.
        const result = await services
          .fill(() => feed.done)
          .finally(() => opts.signal?.removeEventListener('abort', stop));
        if (result.complete) await finishRecordedLog(services.store, recording.header);
        return { ...result, headId: services.ledger.headId };
      } finally {
        await services.close();
      }
    } finally {
      recording.close();
    }
  } finally {
    lock?.release();
  }
}
