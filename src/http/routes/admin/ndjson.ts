import type { RecordFault } from '../../../domain/ingest.ts';

const NEWLINE = 0x0a;

/**
 * The records of an NDJSON body, one a line; a blank (or all-white) line is skipped, a line that is
 * not JSON is a fault at its record's index. Each line is decoded from the body's bytes on its own:
 * a newline byte is never part of a longer UTF-8 character, so every line decodes as it would from
 * the whole text, and no copy of the whole body is made as one string (a large one, which V8 puts
 * straight in its old generation, and through whose slices JSON.parse read about half as fast in a
 * measurement of the bench's bodies; docs/benchmarks.md).
 */
export function parseLines(body: Buffer): { records: unknown[] } | { faults: RecordFault[] } {
  const records: unknown[] = [];
  const faults: RecordFault[] = [];
  for (let start = 0; start < body.length;) {
    let end = body.indexOf(NEWLINE, start);
    if (end < 0) end = body.length;
    const line = body.toString('utf8', start, end);
    start = end + 1;
    if (line.trim() === '') continue;
    try {
      records.push(JSON.parse(line));
    } catch {
      faults.push({ index: records.length + faults.length, field: '', message: 'the line is not JSON' });
    }
  }
  return faults.length > 0 ? { faults } : { records };
}
