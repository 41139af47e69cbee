/**
 * Prints how many full collections a writer-like allocation pattern takes, as JSON: rows made and
 * held a while (a ring, as the change feed holds them) then dropped. The heap's growth is set as a
 * `--role writer` process sets it; `ODDSBASE_PLAIN=1` leaves V8's own (the speed wall's twin).
 */
import { constants, PerformanceObserver } from 'node:perf_hooks';
import { growHeapForWrites } from '../../src/perf/heap-growth.ts';

growHeapForWrites();
let majors = 0;
const observer = new PerformanceObserver((list) => {
  for (const e of list.getEntries()) {
    if ((e as { detail?: { kind?: number } }).detail?.kind === constants.NODE_PERFORMANCE_GC_MAJOR) majors++;
  }
});
observer.observe({ entryTypes: ['gc'] });
const held = new Array<unknown>(60_000);
let bytes = 0;
for (let i = 0; i < 400_000; i++) {
  const payload = JSON.stringify({ id: i, name: 'abcdefghij'.repeat(30) });
  bytes += payload.length;
  held[i % held.length] = { id: i, payload, ids: [i, i + 1, i + 2] };
}
// The observer's entries arrive after the collections: a turn of the loop later.
setTimeout(() => {
  observer.disconnect();
  process.stdout.write(JSON.stringify({ majors, bytes }));
}, 50);
