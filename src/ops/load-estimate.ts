import type { LoadProgress } from '../board/apply.ts';

/** How long a load of a store took and how many change rows the store held then (the meta value `store_load_ms`). */
export interface LoadTiming {
  ms: number;
  rows: number;
}

/** How long the load about to begin may take, at the pace of the last load of this store; none when not known. */
export interface LoadEstimate {
  rows: number;
  ms: number | undefined;
}

/**
 * Below this a load's pace says nothing of a larger store's: a first start loads an empty store,
 * and a restart told "about 1 s" by it then took 14-24 s.
 */
const MIN_TIMED_ROWS = 100_000;

/** The kept timing; undefined for none, or for one kept in another shape (by bytes, before rows). */
export function parseLoadTiming(stored: string | undefined): LoadTiming | undefined {
  if (!stored?.startsWith('{')) return undefined;
  const t = JSON.parse(stored) as Partial<LoadTiming>;
  return typeof t.ms === 'number' && typeof t.rows === 'number' ? { ms: t.ms, rows: t.rows } : undefined;
}

/**
 * The time a load of a store of `rows` change rows may take: at the last load's pace when that one
 * read enough rows to tell it. Otherwise none: a pace assumed for every machine was five times out
 * on a crowded one ("roughly 6 s", then 36.6 s at a load average of 11), and the progress lines
 * measure the load's own.
 */
export function estimateLoad(rows: number, last: LoadTiming | undefined): LoadEstimate {
  return { rows, ms: last && last.rows >= MIN_TIMED_ROWS ? (last.ms * rows) / last.rows : undefined };
}

const count = (n: number): string => n.toLocaleString('en-US');

/** The progress line of a load about to begin. */
export function loadingLine(e: LoadEstimate): string {
  if (e.rows === 0) return 'loading the store (empty)';
  return e.ms === undefined
    ? `loading the store (${count(e.rows)} changes; no load this large timed here yet, progress follows)`
    : `loading the store (${count(e.rows)} changes, about ${Math.max(1, Math.round(e.ms / 1000))} s at the last load's pace)`;
}

/**
 * A load's progress lines for `show`, one at most every `everyMs`, the first `everyMs` after its
 * first report: the part it reads, how far into it where that is known, and the time that part has
 * left at the pace measured in it so far. `now` is a clock in ms.
 */
export function loadProgress(
  show: (line: string) => void,
  everyMs: number,
  now: () => number = () => performance.now(),
): (p: LoadProgress) => void {
  let began: number | undefined;
  let shownAt = 0;
  let pace: { part: LoadProgress['part']; done: number; at: number } | undefined;
  return (p) => {
    const at = now();
    if (began === undefined) began = shownAt = at;
    if (pace?.part !== p.part) pace = { part: p.part, done: p.done, at };
    if (at - shownAt < everyMs) return;
    shownAt = at;
    const so = `${Math.round((at - began) / 1000)} s so far`;
    if (p.total <= 0) {
      show(`loading the store: ${p.part}, ${count(p.done)} rows read (${so})`);
      return;
    }
    if (p.done >= p.total) {
      show(`loading the store: ${p.part} 100% (${so})`);
      return;
    }
    const pct = Math.floor((p.done / p.total) * 100);
    const rate = (p.done - pace.done) / Math.max(1, at - pace.at);
    const left =
      rate > 0 ? `about ${Math.ceil((p.total - p.done) / rate / 1000)} s left of them` : 'measuring the time left';
    show(`loading the store: ${p.part} ${pct}% (${so}, ${left})`);
  };
}
