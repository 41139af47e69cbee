/**
 * Numbers as fast-json-stringify writes them, for JSON written by hand beside its compiled
 * serialisers: the same text for every value, so hand-written and compiled output never differ.
 */

/** fast-json-stringify's integer: fractions truncated, infinities and NaN refused. */
export function integer(n: number): string {
  if (Number.isInteger(n)) return `${n}`;
  const t = Math.trunc(n);
  if (!Number.isFinite(t)) throw new Error(`The value "${n}" cannot be converted to an integer.`);
  return `${t}`;
}

/** fast-json-stringify's number: infinities are null, NaN is refused. */
export function number(n: number): string {
  if (Number.isNaN(n)) throw new Error(`The value "${n}" cannot be converted to a number.`);
  return n === Infinity || n === -Infinity ? 'null' : `${n}`;
}
