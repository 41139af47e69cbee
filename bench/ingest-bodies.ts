/**
 * The NDJSON bodies of bench/ingest-http.ts on disk, so that the client process and the ledger's
 * bench entry read the same bytes: `DIR/batches.json` lists each batch's id, time and file, in the
 * order they are sent.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface BodyFile {
  /** The batch id (Idempotency-Key) and its time (X-Batch-At). */
  id: string;
  at: string;
  body: Buffer;
}

const INDEX = 'batches.json';

export function writeBodies(dir: string, bodies: readonly BodyFile[]): void {
  const index = bodies.map((b, i) => {
    const file = `${String(i).padStart(5, '0')}.ndjson`;
    writeFileSync(join(dir, file), b.body);
    return { id: b.id, at: b.at, file };
  });
  writeFileSync(join(dir, INDEX), JSON.stringify(index));
}

export function readBodies(dir: string): BodyFile[] {
  const index = JSON.parse(readFileSync(join(dir, INDEX), 'utf8')) as { id: string; at: string; file: string }[];
  return index.map((b) => ({ id: b.id, at: b.at, body: readFileSync(join(dir, b.file)) }));
}
