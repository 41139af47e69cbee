/** How long a load of a store took and how large the store was then (the meta value `store_load_ms`). */
export interface LoadTiming {
  ms: number;
  bytes: number;
}

/** How long the load about to begin may take, and whether that pace was measured on this store. */
export interface LoadEstimate {
  ms: number;
  bytes: number;
  measured: boolean;
}

/**
 * Below this a load's time says nothing of a larger store's: a first start loads an empty store,
 * and a restart told "about 1 s" by it then took 14-24 s.
 */
const MIN_TIMED_BYTES = 16 * 1024 * 1024;

/**
 * The pace assumed when no load of a store this large was timed: a restart's load of a first
 * start's whole history (517 MB) took 11.6 s at a load average of 17 on 2 cores (docs/benchmarks.md).
 */
const TYPICAL_MS_PER_MB = 20;

const MB = 1024 * 1024;

/** The kept timing; undefined for none, or for one kept without its store's size. */
export function parseLoadTiming(stored: string | undefined): LoadTiming | undefined {
  if (!stored?.startsWith('{')) return undefined;
  const t = JSON.parse(stored) as Partial<LoadTiming>;
  return typeof t.ms === 'number' && typeof t.bytes === 'number' ? { ms: t.ms, bytes: t.bytes } : undefined;
}

/** The time a load of a store of `bytes` may take: at the last load's pace when that store was large enough. */
export function estimateLoad(bytes: number, last: LoadTiming | undefined): LoadEstimate {
  if (last && last.bytes >= MIN_TIMED_BYTES) return { ms: (last.ms * bytes) / last.bytes, bytes, measured: true };
  return { ms: (bytes / MB) * TYPICAL_MS_PER_MB, bytes, measured: false };
}

/** The progress line of a load about to begin. */
export function loadingLine(e: LoadEstimate): string {
  if (e.bytes < MB) return 'loading the store (empty)';
  const seconds = Math.max(1, Math.round(e.ms / 1000));
  const size = `${Math.round(e.bytes / MB)} MB`;
  return e.measured
    ? `loading the store (${size}, about ${seconds} s at the last load's pace)`
    : `loading the store (${size}, roughly ${seconds} s: no load of a store this large timed here yet)`;
}
