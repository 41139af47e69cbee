import { americanToDecimal, impliedProbability, offBoard, usablePrice } from '../../packages/client/src/index.ts';

/** The three ways the screen can show a price. */
export type OddsFormat = 'american' | 'decimal' | 'probability';

export const ODDS_FORMATS: readonly { value: OddsFormat; label: string }[] = [
  { value: 'american', label: 'American' },
  { value: 'decimal', label: 'Decimal' },
  { value: 'probability', label: 'Implied probability' },
];

/** What a cell shows for a price: "OFF" for the off-board sentinel, never a number made from it. */
export function formatPrice(price: number | string, format: OddsFormat): string {
  if (offBoard(price)) return 'OFF';
  const american = usablePrice(price);
  if (american === undefined) return '–';
  if (format === 'decimal') return americanToDecimal(american)!.toFixed(2);
  if (format === 'probability') return `${(impliedProbability(american)! * 100).toFixed(1)}%`;
  return american > 0 ? `+${american}` : String(american);
}

/** A line value as a book quotes it: spreads signed, totals with o/u, moneylines none. */
export function formatLine(
  line: string,
  kind: 'moneyline' | 'spread' | 'total',
  side: 'over' | 'under' | 'team',
): string {
  if (kind === 'moneyline' || line === '') return '';
  if (kind === 'total') return `${side === 'under' ? 'u' : 'o'}${line}`;
  const n = Number(line);
  return Number.isFinite(n) && n > 0 ? `+${line}` : line;
}

/** The payout of a price as one comparable number (decimal odds); undefined when it is no price. */
export function payout(price: number | string): number | undefined {
  return americanToDecimal(price);
}
