import { CHANGE_KINDS, type ChangeKind, type ChangeRecord, type EpochGap } from './change.ts';

/**
 * A recording of the change log (`oddsbase record`, `oddsbase replay`): NDJSON, one header line,
 * then every row of the log in id order, each the stored `ChangeRecord` as it is (every column,
 * whatever its kind), so a kind added to the log later is recorded and replayed with no change
 * here. Replay hands the rows to the ledger as they are: ids, times and payloads come out identical.
 * Between the rows, in log order, the named batches the store keeps beside the log (a `batch`
 * line right after the last row of its batch), so a batch id sent again to a replayed store
 * applies nothing, as it would on the recorded one.
 */

/** The `format` of a recording's header line. */
export const RECORDING_FORMAT = 'oddsbase-change-log';
/** Raised when the line layout changes in a way an older reader would misread. */
export const RECORDING_VERSION = 2;
/** Versions this reader takes: 1 has no `batch` lines. */
const READ_VERSIONS: ReadonlySet<unknown> = new Set([1, 2]);

/**
 * A named batch (ingest's batch id, `Commit.batch`) as recorded: `head_id` is the log's head its
 * commit left (the last row it wrote, or the head before it when it changed nothing).
 */
export interface RecordedBatch {
  kind: 'batch';
  batch_id: string;
  head_id: number;
  committed_ms: number;
}

/** A line after the header: a row of the log, or a named batch. */
export type RecordedEntry = ChangeRecord | RecordedBatch;

export interface RecordingHeader {
  format: typeof RECORDING_FORMAT;
  version: number;
  /** The epoch of the log recorded: a replay into an empty store continues that log under it. */
  epoch: string;
  /** The log's id gaps (a fresh log's base, restores), so cursors inside them are refused alike. */
  gaps: EpochGap[];
  /** Rows after this id are recorded (`--from`; 0 for the whole log). */
  from_id: number;
  /** The log's head when the recording was taken: its last row, unless nothing followed `from_id`. */
  head_id: number;
  /** When it was taken, ISO 8601. */
  recorded_at: string;
}

/** A line of a recording that cannot be read: `line` is 1-based, the header being line 1. */
export class RecordingError extends Error {
  constructor(
    readonly line: number,
    why: string,
  ) {
    super(`line ${line}: ${why}`);
  }
}

const KINDS: ReadonlySet<string> = new Set(CHANGE_KINDS);

/** The row or batch as one line (without its newline). */
export function rowLine(entry: RecordedEntry): string {
  return JSON.stringify(entry);
}

export function headerLine(header: RecordingHeader): string {
  return JSON.stringify(header);
}

function parseObject(text: string, line: number): Record<string, unknown> {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new RecordingError(line, 'not a JSON line (the file is truncated or corrupt)');
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new RecordingError(line, 'not a JSON object');
  }
  return value as Record<string, unknown>;
}

const isId = (v: unknown): v is number => Number.isSafeInteger(v) && (v as number) >= 0;
const isGap = (g: unknown): g is EpochGap =>
  typeof g === 'object' &&
  g !== null &&
  isId((g as EpochGap).from) &&
  isId((g as EpochGap).to) &&
  typeof (g as EpochGap).epoch === 'string';

/** Reads the first line of a recording. */
export function parseHeader(text: string): RecordingHeader {
  const h = parseObject(text, 1);
  if (h.format !== RECORDING_FORMAT) throw new RecordingError(1, `not a recording of oddsbase's change log`);
  if (!READ_VERSIONS.has(h.version)) {
    throw new RecordingError(
      1,
      `recording format version ${String(h.version)}; this oddsbase reads ${RECORDING_VERSION}`,
    );
  }
  if (typeof h.epoch !== 'string' || h.epoch === '') throw new RecordingError(1, 'the header has no epoch');
  if (!Array.isArray(h.gaps) || !h.gaps.every(isGap)) throw new RecordingError(1, 'the header has no valid gaps');
  if (!isId(h.from_id) || !isId(h.head_id) || h.head_id < h.from_id) {
    throw new RecordingError(1, 'the header has no valid from_id and head_id');
  }
  if (typeof h.recorded_at !== 'string') throw new RecordingError(1, 'the header has no recorded_at');
  return h as unknown as RecordingHeader;
}

const nullableId = (v: unknown) => v === null || isId(v);

/** Reads a line after the header: a named batch, or a row with every column a stored row has. */
export function parseRow(text: string, line: number): RecordedEntry {
  const r = parseObject(text, line);
  if (r.kind === 'batch') return parseBatch(r, line);
  const bad = (field: string) => new RecordingError(line, `the row has no valid ${field}`);
  if (!isId(r.id) || r.id === 0) throw bad('id');
  if (typeof r.kind !== 'string' || !KINDS.has(r.kind)) {
    throw new RecordingError(line, `unknown change kind ${JSON.stringify(r.kind)}`);
  }
  if (typeof r.event_id !== 'string') throw bad('event_id');
  if (!Number.isSafeInteger(r.sport_id)) throw bad('sport_id');
  if (typeof r.at !== 'string' || Number.isNaN(Date.parse(r.at))) throw bad('at');
  if (!isId(r.committed_ms)) throw bad('committed_ms');
  for (const f of ['price_id', 'affiliate_id', 'market_id'] as const) if (!nullableId(r[f])) throw bad(f);
  if (typeof r.payload !== 'string') throw bad('payload');
  if (r.detail !== null && typeof r.detail !== 'string') throw bad('detail');
  return { ...(r as unknown as ChangeRecord), kind: r.kind as ChangeKind };
}

function parseBatch(r: Record<string, unknown>, line: number): RecordedBatch {
  const bad = (field: string) => new RecordingError(line, `the batch has no valid ${field}`);
  if (typeof r.batch_id !== 'string' || r.batch_id === '') throw bad('batch_id');
  if (!isId(r.head_id)) throw bad('head_id');
  if (!isId(r.committed_ms)) throw bad('committed_ms');
  return { kind: 'batch', batch_id: r.batch_id, head_id: r.head_id, committed_ms: r.committed_ms };
}
