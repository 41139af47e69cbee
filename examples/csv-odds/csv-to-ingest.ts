/**
 * A small feed adapter: a CSV file of odds in a common layout becomes ingest batches, POSTed to an
 * oddsbase server started with `--feed ingest` (docs/feeds.md). It uses nothing of the server's code:
 * it speaks the ingest contract over HTTP, as a team's own adapter would.
 *
 *   ODDSBASE_ADMIN_TOKEN=oba_… node --import tsx examples/csv-odds/csv-to-ingest.ts odds.csv http://localhost:8080
 *
 * The layout, with a header line (columns in any order):
 *
 *   event,book,market,side,line,price,time
 *   nba-2026-12-06-bos-lal,19,moneyline,2002,,+120,2026-12-06T18:00:00Z
 *   nba-2026-12-06-bos-lal,19,spread,2014,-3.5,-110,2026-12-06T18:00:00Z
 *   nba-2026-12-06-bos-lal,19,total,over,221.5,-105,2026-12-06T18:00:00Z
 *   nba-2026-12-06-bos-lal,22,moneyline,2002,,off,2026-12-06T18:05:00Z
 *
 * - event: the event's id, as its `event` record gave it (the events come from the schedule feed).
 * - book: an affiliate id (GET /api/v2/affiliates lists them).
 * - market: moneyline, spread, total, or a market id; full game (period 0).
 * - side: a team id for moneyline and spread, over or under for a total (participant ids 0 and 1).
 * - line: the spread or total, empty for a moneyline.
 * - price: American odds (+120, -110); `off` is off the board (0.0001); `closed` closes the price.
 * - time: ISO 8601; the rows of one time go in one batch (at that time), in file order.
 *
 * Batch ids are the file's name and the batch's number: sending the same file again applies nothing twice.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

export interface CsvRow {
  /** Line number in the file (1 is the header). */
  line: number;
  event: string;
  book: string;
  market: string;
  side: string;
  value: string;
  price: string;
  time: string;
}

export interface PriceRecord {
  kind: 'price';
  event_id: string;
  market_id: number;
  period_id: number;
  participant_id: number;
  participant_type: 'TYPE_TEAM' | 'TYPE_RESULT';
  participant_name: string;
  line: string;
  affiliate_id: number;
  price: number;
  closed?: boolean;
}

export interface Batch {
  batch_id: string;
  at: string;
  records: PriceRecord[];
}

const COLUMNS = ['event', 'book', 'market', 'side', 'line', 'price', 'time'] as const;
const MARKETS: Record<string, number> = { moneyline: 1, spread: 2, total: 3 };
const OFF_BOARD = 0.0001;

/** Splits the CSV (no quoted commas in this layout); refuses a header without every column. */
export function parseCsv(text: string): CsvRow[] {
  const lines = text.split(/\r?\n/);
  const header = lines[0]!.split(',').map((h) => h.trim().toLowerCase());
  const missing = COLUMNS.filter((c) => !header.includes(c));
  if (missing.length > 0) throw new Error(`the header lacks ${missing.join(', ')}`);
  const at = (cells: string[], name: string) => (cells[header.indexOf(name)] ?? '').trim();
  const rows: CsvRow[] = [];
  for (let i = 1; i < lines.length; i++) {
    if (lines[i]!.trim() === '') continue;
    const cells = lines[i]!.split(',');
    rows.push({
      line: i + 1,
      event: at(cells, 'event'),
      book: at(cells, 'book'),
      market: at(cells, 'market'),
      side: at(cells, 'side'),
      value: at(cells, 'line'),
      price: at(cells, 'price'),
      time: at(cells, 'time'),
    });
  }
  return rows;
}

/** One row as a price record, or why it cannot be one. */
export function toRecord(row: CsvRow): PriceRecord | string {
  const marketId = MARKETS[row.market.toLowerCase()] ?? Number(row.market);
  if (!Number.isInteger(marketId) || marketId <= 0) return `line ${row.line}: unknown market '${row.market}'`;
  const book = Number(row.book);
  if (!Number.isInteger(book) || book <= 0) return `line ${row.line}: book must be an affiliate id, got '${row.book}'`;
  const side = row.side.toLowerCase();
  const result = side === 'over' || side === 'under';
  const participant = result ? (side === 'over' ? 0 : 1) : Number(row.side);
  if (!Number.isInteger(participant) || participant < 0) return `line ${row.line}: unknown side '${row.side}'`;
  const closed = row.price.toLowerCase() === 'closed';
  const price = row.price.toLowerCase() === 'off' ? OFF_BOARD : closed ? Number.NaN : Number(row.price);
  if (!closed && !Number.isFinite(price)) return `line ${row.line}: price must be American odds, off or closed`;
  if (Number.isNaN(Date.parse(row.time))) return `line ${row.line}: time must be ISO 8601, got '${row.time}'`;
  const record: PriceRecord = {
    kind: 'price',
    event_id: row.event,
    market_id: marketId,
    period_id: 0,
    participant_id: participant,
    participant_type: result ? 'TYPE_RESULT' : 'TYPE_TEAM',
    participant_name: result ? (side === 'over' ? 'Over' : 'Under') : row.side,
    line: row.value,
    affiliate_id: book,
    // A closed price keeps the last price sent for it; the adapter remembers it (see toBatches).
    price,
  };
  if (closed) record.closed = true;
  return record;
}

/**
 * The rows as batches: one per time, in file order, at most `size` records each. A `closed` row
 * carries the last price the file gave that line.
 */
export function toBatches(rows: readonly CsvRow[], name: string, size = 1000): { batches: Batch[]; errors: string[] } {
  const errors: string[] = [];
  const last = new Map<string, number>();
  const batches: Batch[] = [];
  for (const row of rows) {
    const record = toRecord(row);
    if (typeof record === 'string') {
      errors.push(record);
      continue;
    }
    const key = `${record.event_id}|${record.market_id}|${record.participant_id}|${record.line}|${record.affiliate_id}`;
    if (record.closed) {
      const before = last.get(key);
      if (before === undefined) {
        errors.push(`line ${row.line}: closes a price the file never gave`);
        continue;
      }
      record.price = before;
    } else last.set(key, record.price);
    const at = new Date(row.time).toISOString();
    const open = batches.at(-1);
    if (open && open.at === at && open.records.length < size) open.records.push(record);
    else batches.push({ batch_id: `${name}:${batches.length + 1}`, at, records: [record] });
  }
  return { batches, errors };
}

/** POSTs the batches in order, each as NDJSON; waits out a 503's Retry-After. Returns the answers. */
export async function send(
  url: string,
  token: string,
  batches: readonly Batch[],
): Promise<{ batch_id: string; applied: boolean; head_id: number }[]> {
  const answers = [];
  for (const b of batches) {
    for (;;) {
      const res = await fetch(`${url}/admin/v1/ingest`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/x-ndjson',
          'idempotency-key': b.batch_id,
          'x-batch-at': b.at,
        },
        body: b.records.map((r) => JSON.stringify(r)).join('\n'),
      });
      const body = await res.json();
      if (res.status === 503) {
        await new Promise((resolve) => setTimeout(resolve, Number(res.headers.get('retry-after') ?? 1) * 1000));
        continue;
      }
      if (res.status !== 200) throw new Error(`batch ${b.batch_id}: ${res.status} ${JSON.stringify(body)}`);
      answers.push(body);
      break;
    }
  }
  return answers;
}

async function main(): Promise<void> {
  const [file, url = 'http://localhost:8080'] = process.argv.slice(2);
  const token = process.env.ODDSBASE_ADMIN_TOKEN;
  if (!file || !token) {
    process.stderr.write('usage: ODDSBASE_ADMIN_TOKEN=oba_… csv-to-ingest.ts FILE.csv [SERVER_URL]\n');
    process.exit(2);
  }
  const { batches, errors } = toBatches(parseCsv(readFileSync(file, 'utf8')), basename(file));
  if (errors.length > 0) {
    process.stderr.write(`${errors.join('\n')}\n`);
    process.exit(1);
  }
  const answers = await send(url, token, batches);
  const applied = answers.filter((a) => a.applied).length;
  process.stdout.write(
    `${answers.length} batches sent, ${applied} applied, ${answers.length - applied} already applied\n`,
  );
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
