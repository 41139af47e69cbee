/**
 * Loaded into a server child with `--import` (bench/bounded.ts --probe): once a second it writes
 * one line to stderr, `oddsbase-probe {json}`, with what the main thread's event loop went through
 * in that second: the delay histogram (perf_hooks.monitorEventLoopDelay), every stall of the loop
 * longer than STALL_MS with its span and the process's CPU time within it, and every garbage
 * collection with its kind and span. Spans
 * are in µs of the monotonic clock (process.hrtime), which every process of the machine shares and
 * V8 stamps CPU-profile samples with, so a client can line them up with its slow requests.
 */
import { constants, monitorEventLoopDelay, type PerformanceEntry, PerformanceObserver } from 'node:perf_hooks';

const PROBE_PREFIX = 'oddsbase-probe ';
const TICK_MS = 5;
const STALL_MS = 25;

const nowUs = () => Number(process.hrtime.bigint() / 1000n);
/** A performance timestamp (ms since the time origin) on the monotonic µs clock. */
const perfToUs = (t: number) => nowUs() - (performance.now() - t) * 1000;

const GC_KINDS: Record<number, string> = {
  [constants.NODE_PERFORMANCE_GC_MINOR]: 'minor',
  [constants.NODE_PERFORMANCE_GC_MAJOR]: 'major',
  [constants.NODE_PERFORMANCE_GC_INCREMENTAL]: 'incremental',
  [constants.NODE_PERFORMANCE_GC_WEAKCB]: 'weak',
};

const histogram = monitorEventLoopDelay({ resolution: 10 });
histogram.enable();
let stalls: [number, number, number][] = [];
let gcs: [string, number, number][] = [];
let last = nowUs();
let lastCpu = process.cpuUsage();
const ticker = setInterval(() => {
  const t = nowUs();
  const cpu = process.cpuUsage();
  // CPU time of the process (every thread) within the stall: near its length when the loop was busy,
  // far below it when the thread waited (I/O, or another process had the CPU).
  const cpuMs = (cpu.user + cpu.system - lastCpu.user - lastCpu.system) / 1000;
  if (t - last > STALL_MS * 1000) stalls.push([last, t, Math.round(cpuMs * 10) / 10]);
  last = t;
  lastCpu = cpu;
}, TICK_MS);
ticker.unref();
new PerformanceObserver((list) => {
  for (const e of list.getEntries() as (PerformanceEntry & { detail?: { kind?: number } })[]) {
    gcs.push([GC_KINDS[e.detail?.kind ?? 0] ?? 'other', Math.round(perfToUs(e.startTime)), e.duration]);
  }
}).observe({ entryTypes: ['gc'] });
const reporter = setInterval(() => {
  const ms = (ns: number) => Math.round(ns / 1e4) / 100;
  const mem = process.memoryUsage();
  // The shape bench/bounded.ts reads (ProbeSecond).
  const second = {
    at: nowUs(),
    loop: { p50: ms(histogram.percentile(50)), p99: ms(histogram.percentile(99)), max: ms(histogram.max) },
    stalls,
    gcs,
    heapUsed: mem.heapUsed,
    rss: mem.rss,
  };
  histogram.reset();
  stalls = [];
  gcs = [];
  process.stderr.write(`${PROBE_PREFIX}${JSON.stringify(second)}\n`);
}, 1000);
reporter.unref();
