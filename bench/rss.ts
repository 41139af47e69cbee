/**
 * Resident memory of the server with the default simulator on a fresh data directory: after it
 * listens, VmRSS (from /proc/<pid>/status) is sampled once a second for 60 s while a light client
 * polls the NBA events snapshot once a second.
 *
 *   node --import tsx bench/rss.ts [--seconds 60] [--no-start-flags]
 *
 * The server gets the node flags of `npm start` (package.json), e.g. its heap ceiling, as a user
 * running `npm start` would; --no-start-flags runs plain `node bin/oddsbase.js serve`.
 *
 * The server runs with --expose-gc and bench/mem-probe.ts preloaded: both are idle until the
 * sampling is over, when one SIGUSR2 reports its heap and native memory, before and after a full GC.
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import {
  cleanupOnSignal,
  freePort,
  int,
  isMain,
  log,
  mb,
  median,
  ROOT,
  type ServerChild,
  sleep,
  startOddsbase,
  todayUtc,
} from './lib.ts';

export const TARGET_BYTES = 400 * 1024 * 1024;
const SERVER_CPU = '0';

/** VmRSS of `pid` in bytes, or undefined once the process is gone. */
function rssOf(pid: number): number | undefined {
  try {
    const m = /^VmRSS:\s+(\d+)\s+kB/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const PROBE = pathToFileURL(join(ROOT, 'bench/mem-probe.ts')).href;

export interface MemoryBreakdown {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  external: number;
  arrayBuffers: number;
  spaces: Record<string, number>;
}

/** Asks the server's mem-probe for its memory usage (SIGUSR2) and reads the answer from its output. */
async function probe(server: ServerChild): Promise<{ now?: MemoryBreakdown; afterGc?: MemoryBreakdown }> {
  server.child.proc.kill('SIGUSR2');
  const find = (tag: string) => {
    const line = server.child
      .output()
      .split('\n')
      .reverse()
      .find((l) => l.startsWith(`${tag} {`) && l.endsWith('}'));
    return line ? (JSON.parse(line.slice(tag.length + 1)) as MemoryBreakdown) : undefined;
  };
  for (let i = 0; i < 100; i++) {
    await sleep(100);
    const afterGc = find('mem-probe-gc');
    if (afterGc) return { now: find('mem-probe'), afterGc };
  }
  return { now: find('mem-probe') };
}

async function headOf(url: string, headers: Record<string, string>): Promise<number> {
  try {
    const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
    const body = (await res.json()) as { meta?: { delta_last_id?: string } };
    return Number(body.meta?.delta_last_id ?? 0);
  } catch {
    return 0;
  }
}

function dirBytes(dir: string): number {
  return readdirSync(dir).reduce((s, f) => s + statSync(join(dir, f)).size, 0);
}

export interface RssResult {
  seconds: number;
  startSeconds: number;
  samples: number[];
  atListen: number;
  /** Highest RSS seen (1 s samples) between the spawn and the first answer. */
  startPeak: number;
  peak: number;
  median: number;
  last: number;
  polls: number;
  pollErrors: number;
  /** process.memoryUsage() of the server at the end, from bench/mem-probe.ts. */
  breakdown?: MemoryBreakdown;
  /** Seconds after the listen of the first sample under the target, if any. */
  underTargetAfter?: number;
  /** The same right after a full garbage collection (taken once the sampling is over). */
  afterGc?: MemoryBreakdown;
  /** Change rows committed at the end (the ledger head), and the store's files on disk. */
  head: number;
  storeBytes: number;
  nodeFlags: string[];
  met: boolean;
}

export async function runRss(opts: { seconds?: number; startFlags?: boolean } = {}): Promise<RssResult> {
  const seconds = opts.seconds ?? 60;
  if (process.platform !== 'linux') throw new Error('rss: reads /proc, so it runs on Linux only');
  let server: ServerChild | undefined;
  const undoSignals = cleanupOnSignal(async () => server?.close());
  try {
    log('rss: starting oddsbase with the default simulator on a fresh data directory');
    const started = Date.now();
    // RSS while the simulator fills its history, before the server listens (reported apart).
    let startPeak = 0;
    let sampler: NodeJS.Timeout | undefined;
    try {
      server = await startOddsbase({
        port: await freePort(),
        cpu: SERVER_CPU,
        startFlags: opts.startFlags,
        nodeArgs: ['--expose-gc', '--import', 'tsx', '--import', PROBE],
        onSpawn: (child) => {
          sampler = setInterval(() => {
            startPeak = Math.max(startPeak, rssOf(child.pid) ?? 0);
          }, 1000);
        },
      });
    } finally {
      clearInterval(sampler);
    }
    const startSeconds = (Date.now() - started) / 1000;
    const pid = server.child.pid;
    const atListen = rssOf(pid) ?? 0;
    startPeak = Math.max(startPeak, atListen);
    log(`rss: listening after ${startSeconds.toFixed(1)} s, RSS ${mb(atListen)}; sampling for ${seconds} s`);

    const url = `${server.url}/api/v2/sports/4/events/${todayUtc()}`;
    const headers = { 'X-Service-Key': server.key };
    let polls = 0;
    let pollErrors = 0;
    let polling = true;
    // The light client: one request a second, each awaited, stopping with the sampling.
    const client = (async () => {
      for (let i = 0; polling && i < seconds + 5; i++) {
        try {
          const res = await fetch(url, { headers, signal: AbortSignal.timeout(5000) });
          await res.arrayBuffer();
          if (res.status === 200) polls++;
          else pollErrors++;
        } catch {
          pollErrors++;
        }
        await sleep(1000);
      }
    })();

    const samples: number[] = [];
    const t0 = Date.now();
    for (let i = 1; i <= seconds; i++) {
      await sleep(Math.max(0, t0 + i * 1000 - Date.now()));
      const rss = rssOf(pid);
      if (rss === undefined) throw new Error(`the server exited during the sampling:\n${server.child.output()}`);
      samples.push(rss);
    }
    polling = false;
    await client;
    const peak = Math.max(...samples);
    const firstUnder = samples.findIndex((x) => x < TARGET_BYTES);
    // After the sampling: the probe's forced GC must not shape the samples.
    const { now: breakdown, afterGc } = await probe(server);
    const head = await headOf(url, headers);
    const storeBytes = dirBytes(server.dataDir);
    return {
      seconds,
      startSeconds,
      samples,
      atListen,
      startPeak,
      peak,
      median: median(samples),
      last: samples.at(-1) ?? Number.NaN,
      polls,
      pollErrors,
      breakdown,
      afterGc,
      underTargetAfter: firstUnder < 0 ? undefined : firstUnder + 1,
      head,
      storeBytes,
      nodeFlags: server.nodeFlags,
      met: peak < TARGET_BYTES,
    };
  } finally {
    undoSignals();
    await server?.close();
  }
}

export function rssMarkdown(r: RssResult): string {
  return [
    `### Memory (server with the default simulator, ${r.seconds} s, one events poll a second)`,
    '',
    '| peak before listening | at listen | median | peak | last |',
    '|---:|---:|---:|---:|---:|',
    `| ${mb(r.startPeak)} | ${mb(r.atListen)} | ${mb(r.median)} | ${mb(r.peak)} | ${mb(r.last)} |`,
    '',
    `- node flags (from \`npm start\`): ${r.nodeFlags.join(' ') || 'none'}; plus --expose-gc and the probe`,
    `- the server listened ${r.startSeconds.toFixed(1)} s after it was started (history back-fill included)`,
    `- ${int(r.polls)} polls answered 200, ${r.pollErrors} failed`,
    ...(r.breakdown
      ? [
          `- at the end: V8 heap ${mb(r.breakdown.heapUsed)} used of ${mb(r.breakdown.heapTotal)}` +
            ` (old space ${mb(r.breakdown.spaces.old_space ?? 0)}), external ${mb(r.breakdown.external)}` +
            ` (array buffers ${mb(r.breakdown.arrayBuffers)}); the rest of the RSS` +
            ` (${mb(r.breakdown.rss - r.breakdown.heapTotal - r.breakdown.external)}) is native: code, ` +
            'SQLite page cache, allocator',
        ]
      : []),
    ...(r.afterGc
      ? [
          `- after a forced full GC (once the sampling was over): V8 heap ${mb(r.afterGc.heapUsed)} used ` +
            `of ${mb(r.afterGc.heapTotal)}, RSS ${mb(r.afterGc.rss)}`,
        ]
      : []),
    `- ${int(r.head)} change rows committed at the end; store files ${mb(r.storeBytes)} on disk`,
    `- samples (MB, one a second): ${r.samples.map((x) => Math.round(x / 1024 / 1024)).join(' ')}`,
    r.underTargetAfter === undefined
      ? `- RSS never fell under ${mb(TARGET_BYTES)}`
      : `- first sample under ${mb(TARGET_BYTES)}: ${r.underTargetAfter} s after the listen`,
    `- median and peak are over the ${r.seconds} one-second samples after the server listens`,
    `- peak ${mb(r.peak)}, target < ${mb(TARGET_BYTES)}: ${r.met ? 'met' : '**missed**'}`,
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const i = args.indexOf('--seconds');
  const seconds = i >= 0 ? Math.max(5, Math.min(600, Number(args[i + 1]))) : 60;
  const r = await runRss({ seconds, startFlags: !args.includes('--no-start-flags') });
  process.stdout.write(`${rssMarkdown(r)}\n`);
}
