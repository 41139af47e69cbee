/**
 * Preloaded into the server by bench/rss.ts (`node --import tsx --import ./bench/mem-probe.ts …`):
 * on SIGUSR2 it writes one line `mem-probe {json}` to stderr with process.memoryUsage() and the
 * V8 heap spaces, so the benchmark can tell the JS heap from native memory (SQLite, buffers).
 * When node runs with --expose-gc it then collects garbage and writes a second line,
 * `mem-probe-gc {json}`: what of the heap is live data rather than garbage and slack. It registers
 * a signal handler and nothing else; nothing runs until the signal.
 */
import { getHeapSpaceStatistics } from 'node:v8';

function usage(): string {
  const spaces: Record<string, number> = {};
  for (const s of getHeapSpaceStatistics()) spaces[s.space_name] = s.space_used_size;
  return JSON.stringify({ ...process.memoryUsage(), spaces });
}

process.on('SIGUSR2', () => {
  process.stderr.write(`mem-probe ${usage()}\n`);
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc) {
    gc();
    process.stderr.write(`mem-probe-gc ${usage()}\n`);
  }
});
