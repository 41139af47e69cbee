/**
 * Prices and the off-board sentinel (spec: a price of 0.0001 means the book has taken the line
 * off the board; show it as Off Board and never compute with it). Every conversion answers
 * undefined for the sentinel, so it cannot leak into arithmetic.
 */

export const OFF_BOARD_PRICE = 0.0001;

/** True for the sentinel, given as a number (REST prices) or a string (delta rows, streams). */
export function offBoard(price: number | string): boolean {
  return Math.abs(Number(price) - OFF_BOARD_PRICE) < 1e-9;
}

/** The price as a number for calculations, or undefined when it is off the board or not a price. */
export function usablePrice(price: number | string): number | undefined {
  const n = Number(price);
  if (!Number.isFinite(n) || offBoard(n) || n === 0) return undefined;
  return n;
}

/** What to show: American odds with their sign, or "Off Board". */
export function displayAmerican(price: number | string): string {
  const n = usablePrice(price);
  if (n === undefined) return 'Off Board';
  return n > 0 ? `+${n}` : String(n);
}

export function americanToDecimal(american: number | string): number | undefined {
  const a = usablePrice(american);
  if (a === undefined) return undefined;
  return a > 0 ? 1 + a / 100 : 1 + 100 / -a;
}

/** Decimal odds (above 1) to American, rounded to a whole number. */
export function decimalToAmerican(decimal: number): number | undefined {
  if (!(decimal > 1)) return undefined;
  return decimal >= 2 ? Math.round((decimal - 1) * 100) : Math.round(-100 / (decimal - 1));
}

/** Implied probability (margin included). */
export function impliedProbability(american: number | string): number | undefined {
  const a = usablePrice(american);
  if (a === undefined) return undefined;
  return a < 0 ? -a / (100 - a) : 100 / (a + 100);
}

/** A probability strictly between 0 and 1 to American odds, rounded to a whole number. */
export function probabilityToAmerican(p: number): number | undefined {
  if (!(p > 0 && p < 1)) return undefined;
  return decimalToAmerican(1 / p);
}

const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));

/** Fractional odds "n/d" in lowest terms (+150 is "3/2", -200 is "1/2"). */
export function americanToFractional(american: number | string): string | undefined {
  const a = usablePrice(american);
  if (a === undefined || !Number.isInteger(a)) return undefined;
  const [n, d] = a > 0 ? [a, 100] : [100, -a];
  const g = gcd(n, d);
  return `${n / g}/${d / g}`;
}

export function fractionalToAmerican(fractional: string): number | undefined {
  const m = /^\s*(\d+(?:\.\d+)?)\s*\/\s*(\d+(?:\.\d+)?)\s*$/.exec(fractional);
  if (!m) return undefined;
  const n = Number(m[1]);
  const d = Number(m[2]);
  if (!(n > 0 && d > 0)) return undefined;
  return decimalToAmerican(1 + n / d);
}

export interface FairPrices {
  /** Probabilities with the margin removed, summing to 1. */
  probabilities: number[];
  american: number[];
  /** The book's margin: implied probabilities' sum minus 1. */
  margin: number;
}

/**
 * No-vig fair prices of one market's complete set of outcomes (two sides, or three with a draw),
 * by proportional normalisation. Undefined when any outcome is off the board: a partial set has
 * no fair price.
 */
export function noVig(americanPrices: readonly (number | string)[]): FairPrices | undefined {
  if (americanPrices.length < 2) return undefined;
  const implied = americanPrices.map(impliedProbability);
  if (implied.some((p) => p === undefined)) return undefined;
  const ps = implied as number[];
  const total = ps.reduce((a, b) => a + b, 0);
  const probabilities = ps.map((p) => p / total);
  return { probabilities, american: probabilities.map((p) => probabilityToAmerican(p)!), margin: total - 1 };
}
