import { setFlagsFromString } from 'node:v8';
import { PLAIN } from './switch.ts';

/**
 * How far V8 lets the old generation grow past what the last full collection left, in percent.
 * V8 picks the factor from the heap's cap: under `npm start`'s 288 MB about 1.3, so a cluster's
 * writer, each of whose batches promotes megabytes to the old generation, ran a full collection
 * every 300 ms at 18,000 rows a second, a fifth of its CPU (docs/benchmarks.md). At 2 they come
 * about half as often; the cap still bounds the heap.
 */
export const WRITER_HEAP_GROWING_PERCENT = 100;

/**
 * Sets the growth for the rest of the process (V8 reads it at each full collection), for a
 * `--role writer` or `--feed ingest` process (batches at rate); the plain twin leaves V8's own
 * choice. Changes when memory is collected, never what is kept or served.
 */
export function growHeapForWrites(): void {
  if (PLAIN) return;
  setFlagsFromString(`--heap-growing-percent=${WRITER_HEAP_GROWING_PERCENT}`);
}
