/**
 * What bench/retention-server.ts and bench/retention-replay.ts measure of retention's steps: each
 * step's time on the server's thread (the event loop's active time over the step, so the
 * compression awaited on libuv's pool is left out; nothing else runs while the harness steps), by
 * what the step did: a chunk of the log, a pack, an archiving of finished events, or nothing.
 */
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import type { Services } from '../src/compose.ts';
import type { CompactStep } from '../src/store/store.ts';

export type StepKind = 'chunk' | 'pack' | 'archive' | 'idle';

export interface StepProbe {
  /** Busy ms of each step since the last reset, by kind. */
  byKind: Record<StepKind, number[]>;
  /** Wall ms of the store's compaction calls that scanned a chunk, and of those that only packed. */
  chunkWallMs: number[];
  packWallMs: number[];
  /** The ten slowest steps since the last reset. */
  slowest: { kind: StepKind; busy: number; scanned: number; dropped: number }[];
  reset(): void;
  close(): void;
}

export function quantile(xs: readonly number[], q: number): number {
  const sorted = [...xs].sort((a, b) => a - b);
  return sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}

/** Wraps the services' store compaction and retention step to record them (`storeFile`: read-only figures). */
export function stepProbe(services: Pick<Services, 'store' | 'retention'>, storeFile: string): StepProbe {
  const reader = new Database(storeFile, { readonly: true });
  const packedCount = reader.prepare('SELECT coalesce(max(id), 0) FROM archived_rows').pluck();
  const probe: StepProbe = {
    byKind: { chunk: [], pack: [], archive: [], idle: [] },
    chunkWallMs: [],
    packWallMs: [],
    slowest: [],
    reset() {
      probe.byKind = { chunk: [], pack: [], archive: [], idle: [] };
      probe.chunkWallMs = [];
      probe.packWallMs = [];
      probe.slowest = [];
    },
    close: () => reader.close(),
  };
  let last = { scanned: 0, dropped: 0 };
  const compact = services.store.compact.bind(services.store);
  services.store.compact = async (step: CompactStep) => {
    const packedBefore = packedCount.get() as number;
    const t = performance.now();
    const r = await compact(step);
    const ms = performance.now() - t;
    last = { scanned: r.scanned, dropped: r.dropped };
    if (r.scanned > 0) probe.chunkWallMs.push(ms);
    else if ((packedCount.get() as number) > packedBefore) probe.packWallMs.push(ms);
    return r;
  };
  const retention = services.retention;
  const step = retention.step.bind(retention);
  retention.step = async () => {
    const packedBefore = packedCount.get() as number;
    const archivedBefore = retention.archived;
    last = { scanned: 0, dropped: 0 };
    const elu = performance.eventLoopUtilization();
    const r = await step();
    const busy = performance.eventLoopUtilization(elu).active;
    const kind: StepKind =
      (packedCount.get() as number) > packedBefore
        ? 'pack'
        : last.scanned > 0
          ? 'chunk'
          : retention.archived > archivedBefore
            ? 'archive'
            : 'idle';
    probe.byKind[kind].push(busy);
    if (probe.slowest.length < 10 || busy > probe.slowest.at(-1)!.busy) {
      probe.slowest.push({ kind, busy, ...last });
      probe.slowest.sort((a, b) => b.busy - a.busy);
      probe.slowest.length = Math.min(probe.slowest.length, 10);
    }
    return r;
  };
  return probe;
}
