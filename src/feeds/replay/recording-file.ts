import { createReadStream, createWriteStream, renameSync, rmSync, statSync } from 'node:fs';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip, createGzip } from 'node:zlib';
import {
  headerLine,
  parseHeader,
  parseRow,
  type RecordedEntry,
  type RecordingHeader,
  RecordingError,
  rowLine,
} from '../../changelog/recording.ts';

/** A recording is compressed when its name says so (`oddsbase record`) or its first bytes do. */
const GZIP_NAME = /\.gz$/i;

/** Text gathered before it is handed to the file (or gzip): a write per row cost more than the rows. */
const CHUNK_CHARS = 64 * 1024;

export interface WrittenRecording {
  rows: number;
  /** Named batches written beside the rows. */
  batches: number;
  bytes: number;
  /** Id of the last row written (the header's from_id when none). */
  lastId: number;
}

/**
 * Writes a recording to `out`: the header line, then `entries` (rows and named batches) as they come
 * (read and written a page at a time, so the log is never held whole), gzip when the name ends in
 * .gz. The file appears only when complete (written beside it, then renamed), and an existing file
 * is never overwritten.
 */
export async function writeRecording(
  out: string,
  header: RecordingHeader,
  entries: AsyncIterable<RecordedEntry>,
): Promise<WrittenRecording> {
  const partial = `${out}.partial`;
  const result: WrittenRecording = { rows: 0, batches: 0, bytes: 0, lastId: header.from_id };
  async function* text(): AsyncGenerator<string> {
    let chunk = `${headerLine(header)}\n`;
    for await (const entry of entries) {
      chunk += `${rowLine(entry)}\n`;
      if (entry.kind === 'batch') {
        result.batches++;
        continue;
      }
      result.rows++;
      result.lastId = entry.id;
      if (chunk.length >= CHUNK_CHARS) {
        yield chunk;
        chunk = '';
      }
    }
    yield chunk;
  }
  const file = createWriteStream(partial, { flags: 'wx' });
  try {
    if (GZIP_NAME.test(out)) await pipeline(Readable.from(text()), createGzip(), file);
    else await pipeline(Readable.from(text()), file);
    // Refuses to replace a file that appeared meanwhile: a recording never overwrites one.
    statSyncMissing(out);
    renameSync(partial, out);
  } catch (err) {
    rmSync(partial, { force: true });
    throw err;
  }
  result.bytes = statSync(out).size;
  return result;
}

function statSyncMissing(path: string): void {
  let exists = true;
  try {
    statSync(path);
  } catch {
    exists = false;
  }
  if (exists) throw new Error(`${path} exists; a recording never overwrites a file`);
}

/** A recording opened for replay: its header read and checked, its rows still to come. */
export interface OpenRecording {
  header: RecordingHeader;
  /** The id of the recording's first row (read ahead), undefined when it has none. */
  firstId: number | undefined;
  /**
   * The rows and named batches in file order, each checked as it is read (a bad line, ids that do
   * not rise, a batch that is not right after the row it ended at, a file that ends before the
   * header's head: a RecordingError naming the line). Read once.
   */
  rows: AsyncIterable<RecordedEntry>;
  /** Stops reading and closes the file. */
  close(): void;
}

/** The lines of a file, plain or gzip, numbered from 1; a truncated or corrupt file is a RecordingError. */
async function* numberedLines(file: string): AsyncGenerator<[string, number]> {
  const source = createReadStream(file);
  let stream: NodeJS.ReadableStream = source;
  const magic = await firstBytes(file);
  if (GZIP_NAME.test(file) || (magic[0] === 0x1f && magic[1] === 0x8b)) stream = source.pipe(createGunzip());
  source.on('error', (err) => (stream as Readable).destroy(err));
  stream.setEncoding('utf8');
  let line = 0;
  let rest = '';
  try {
    for await (const chunk of stream as AsyncIterable<string>) {
      rest += chunk;
      let start = 0;
      for (let nl = rest.indexOf('\n'); nl !== -1; nl = rest.indexOf('\n', start)) {
        line++;
        yield [rest.slice(start, nl), line];
        start = nl + 1;
      }
      rest = rest.slice(start);
    }
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'Z_BUF_ERROR') throw new RecordingError(line + 1, 'the compressed file ends early (truncated)');
    if (typeof code === 'string' && code.startsWith('Z_')) {
      throw new RecordingError(line + 1, `the compressed data is corrupt (${(err as Error).message})`);
    }
    throw err;
  } finally {
    source.destroy();
  }
  if (rest !== '') {
    // Every line the recorder writes ends in a newline: a last one without is a file cut short.
    throw new RecordingError(line + 1, 'the file ends in the middle of a line (truncated)');
  }
}

async function firstBytes(file: string): Promise<Buffer> {
  const stream = createReadStream(file, { start: 0, end: 1 });
  const parts: Buffer[] = [];
  for await (const part of stream as AsyncIterable<Buffer>) parts.push(part);
  return Buffer.concat(parts);
}

/** Opens a recording and reads its header line. */
export async function openRecording(file: string): Promise<OpenRecording> {
  const lines = numberedLines(file);
  const top = await lines.next();
  if (top.done) throw new RecordingError(1, 'the file is empty');
  let header: RecordingHeader;
  try {
    header = parseHeader(top.value[0]);
  } catch (err) {
    await lines.return(undefined);
    throw err;
  }
  async function* rows(): AsyncGenerator<RecordedEntry> {
    let lastId = header.from_id;
    let lastMs = 0;
    let lastLine = 1;
    for await (const [text, line] of lines) {
      lastLine = line;
      if (text === '') continue;
      const row = parseRow(text, line);
      if (row.kind === 'batch') {
        // Written right after the row its batch ended at (or the recording's start, if it changed nothing then).
        if (row.head_id !== lastId) {
          throw new RecordingError(line, `batch ${row.batch_id} ended at change ${row.head_id}, not after ${lastId}`);
        }
        yield row;
        continue;
      }
      if (row.id <= lastId) throw new RecordingError(line, `change ${row.id} does not follow change ${lastId}`);
      if (row.id > header.head_id) {
        throw new RecordingError(line, `change ${row.id} is past the recorded head ${header.head_id}`);
      }
      if (row.committed_ms < lastMs)
        throw new RecordingError(line, `change ${row.id} was committed before the one it follows`);
      lastId = row.id;
      lastMs = row.committed_ms;
      yield row;
    }
    if (lastId !== header.head_id) {
      throw new RecordingError(
        lastLine + 1,
        `the file ends after change ${lastId}, before the recorded head ${header.head_id} (truncated)`,
      );
    }
  }
  const source = rows();
  // Read ahead to the first row: batches may come before it (ended where the recording starts).
  const ahead: RecordedEntry[] = [];
  let firstId: number | undefined;
  try {
    for (let next = await source.next(); !next.done; next = await source.next()) {
      ahead.push(next.value);
      if (next.value.kind !== 'batch') {
        firstId = next.value.id;
        break;
      }
    }
  } catch (err) {
    await lines.return(undefined);
    throw err;
  }
  async function* all(): AsyncGenerator<RecordedEntry> {
    yield* ahead;
    yield* source;
  }
  return {
    header,
    firstId,
    rows: all(),
    close: () => {
      void source.return(undefined);
      void lines.return(undefined);
    },
  };
}
