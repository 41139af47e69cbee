/**
 * American odds and the off-board sentinel. Pure functions, no I/O.
 *
 * Conventions: a probability p > 0.5 is a favourite (negative odds), p <= 0.5 an underdog or
 * even money (positive odds), so 0.5 is always +100. Odds are integers and never lie strictly
 * between -100 and +100.
 */

/** Spec: the price value meaning "the book has taken this market off the board". */
export const OFF_BOARD = 0.0001;

/** Largest magnitude of American odds produced; longer shots are clamped to it. */
export const MAX_AMERICAN = 20000;

export function isOffBoard(price: number): boolean {
  return Math.abs(price - OFF_BOARD) < 1e-9;
}

/** Implied probability to integer American odds, clamped to +/-MAX_AMERICAN. */
export function probToAmerican(p: number): number {
  if (!(p > 0)) return MAX_AMERICAN;
  if (p >= 1) return -MAX_AMERICAN;
  if (p > 0.5) return Math.max(-MAX_AMERICAN, Math.min(-100, -Math.round((100 * p) / (1 - p))));
  return Math.min(MAX_AMERICAN, Math.max(100, Math.round((100 * (1 - p)) / p)));
}

/** Implied probability of American odds (no margin removed). */
export function americanToProb(american: number): number {
  return american < 0 ? -american / (100 - american) : 100 / (american + 100);
}

/**
 * Rounds American odds to a book's increment (5 gives -110, -115, +130 ...), keeping the
 * result outside (-100, +100) and within +/-MAX_AMERICAN.
 */
export function roundAmerican(american: number, step: number): number {
  const magnitude = Math.min(MAX_AMERICAN, Math.max(100, Math.round(Math.abs(american) / step) * step));
  return american < 0 ? -magnitude : magnitude;
}

/**
 * Proportional overround: scales fair probabilities so that the implied probabilities sum to
 * 1 + margin. Inputs need not sum exactly to 1; they are normalised first. One output per input,
 * so a tuple in gives a tuple of the same length out.
 */
export function applyMargin<const T extends readonly number[]>(
  fairProbs: T,
  margin: number,
): { -readonly [K in keyof T]: number } {
  // map keeps the length, which its own type does not say.
  type Same = { -readonly [K in keyof T]: number };
  const sum = fairProbs.reduce((acc, p) => acc + p, 0);
  if (!(sum > 0)) return fairProbs.map(() => 0) as Same;
  const scale = (1 + margin) / sum;
  return fairProbs.map((p) => p * scale) as Same;
}

/** Difference from the previous price; 0 for a first price or when either side is off the board. */
export function priceDelta(prev: number | undefined, cur: number): number {
  if (prev === undefined || isOffBoard(prev) || isOffBoard(cur)) return 0;
  return cur - prev;
}
