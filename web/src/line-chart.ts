import { impliedProbability, type ChartPoint } from '../../packages/client/src/index.ts';
import { escapeHtml } from './escape.ts';

/**
 * The line chart of one market side per book, drawn as inline SVG markup: x is the time of each
 * recorded row, y the implied probability of a moneyline price or the line value of a spread or
 * total. Off-board points break a book's line rather than plotting the sentinel. No DOM here.
 */

/** Fourteen colours distinguishable from each other, each at least 3:1 against white. */
export const BOOK_COLOURS = [
  '#1f5fbf',
  '#c0392b',
  '#1e8449',
  '#8e44ad',
  '#b9770e',
  '#117a8b',
  '#d35400',
  '#34495e',
  '#a93226',
  '#196f3d',
  '#6c3483',
  '#9a7d0a',
  '#2e4053',
  '#c2185b',
] as const;

export const colourOf = (index: number): string => BOOK_COLOURS[index % BOOK_COLOURS.length]!;

export interface ChartSeries {
  affiliateId: number;
  name: string;
  points: readonly ChartPoint[];
}

const W = 640;
const H = 260;
const PAD = { left: 48, right: 12, top: 12, bottom: 28 };

function yOf(p: ChartPoint, byLine: boolean): number | undefined {
  if (byLine) {
    const n = Number(p.l);
    return p.l !== '' && Number.isFinite(n) ? n : undefined;
  }
  const prob = impliedProbability(p.p);
  return prob === undefined ? undefined : prob * 100;
}

const hhmm = (ms: number): string => new Date(ms).toISOString().slice(11, 16);

/** SVG markup for the series; `byLine` plots line values (spread, total) instead of probabilities. */
export function lineChartSvg(series: readonly ChartSeries[], byLine: boolean, title: string): string {
  const pts = series.map((s) =>
    s.points.map((p) => ({ x: Date.parse(p.t), y: yOf(p, byLine) })).filter((p) => Number.isFinite(p.x)),
  );
  const xs = pts.flat().map((p) => p.x);
  const ys = pts.flat().flatMap((p) => (p.y === undefined ? [] : [p.y]));
  if (xs.length === 0 || ys.length === 0) return `<p class="empty">No recorded prices for this market yet.</p>`;
  const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  if (y0 === y1) [y0, y1] = [y0 - 1, y1 + 1];
  const sx = (x: number) => PAD.left + ((x - x0) / Math.max(1, x1 - x0)) * (W - PAD.left - PAD.right);
  const sy = (y: number) => PAD.top + (1 - (y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  const paths = series.map((s, i) => {
    let d = '';
    let pen = false;
    for (const p of pts[i]!) {
      if (p.y === undefined) {
        pen = false;
        continue;
      }
      d += `${pen ? 'L' : 'M'}${sx(p.x).toFixed(1)},${sy(p.y).toFixed(1)}`;
      pen = true;
    }
    return `<path class="series" data-affiliate="${s.affiliateId}" d="${d}" stroke="${colourOf(i)}"><title>${escapeHtml(s.name)}</title></path>`;
  });
  const unit = byLine ? '' : '%';
  const ticks = [y0, (y0 + y1) / 2, y1]
    .map(
      (y) =>
        `<text x="${PAD.left - 6}" y="${sy(y).toFixed(1)}" class="tick" text-anchor="end">${(Math.round(y * 10) / 10).toString()}${unit}</text>`,
    )
    .join('');
  const times = [x0, x1]
    .map(
      (x, i) =>
        `<text x="${sx(x).toFixed(1)}" y="${H - 8}" class="tick" text-anchor="${i === 0 ? 'start' : 'end'}">${hhmm(x)}Z</text>`,
    )
    .join('');
  return (
    `<svg class="line-chart" viewBox="0 0 ${W} ${H}" role="img" aria-label="${escapeHtml(title)}">` +
    `<line class="axis" x1="${PAD.left}" y1="${H - PAD.bottom}" x2="${W - PAD.right}" y2="${H - PAD.bottom}"/>` +
    `<line class="axis" x1="${PAD.left}" y1="${PAD.top}" x2="${PAD.left}" y2="${H - PAD.bottom}"/>` +
    ticks +
    times +
    paths.join('') +
    `</svg>`
  );
}
