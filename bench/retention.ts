/**
 * Retention over 30 days of simulated time: `npm start`'s node flags, the default retention and
 * board keep time, an injected clock that moves `--step-minutes` per simulator step. Reports the
 * data directory's size and the RSS every simulated half day, and their medians over the last
 * week (the steady state, once the log is a retention old and archiving keeps pace).
 *
 * A month of every sport does not fit in minutes on a small machine (the first day alone is over a
 * million rows to write and, a day later, to compact), so by default a subset of leagues runs; the
 * report scales what grows with the number of events (what is kept for good) to the whole simulator.
 *
 * `npm run bench:retention -- [--days 30] [--step-minutes 30] [--sports 3,4,5,21|all] [--out samples.json] [--keep]
 *  [--node-flags '--flag ...'] [--cpu N]`
 * (`--out`: every sample as JSON, written as it comes; `--keep`: the data directory is left for
 * a look at the store afterwards, and its path printed; `--node-flags`: node flags after npm
 * start's, to try one before adopting it; `--cpu`: the server pinned to that CPU, so that two runs
 * can be compared side by side).
 */
import { writeFileSync } from 'node:fs';
import { bundle } from '../bin/bundle.js';
import { SPORTS } from '../src/catalog/sports.ts';
import { daySchedule } from '../src/feeds/simulator/schedule.ts';
import { isMain, log, machineInfo, makeTmpDir, mb, median, removeDir, spawnNode, startScriptNodeFlags } from './lib.ts';

interface Sample {
  day: number;
  wall_s: number;
  rss: number;
  heap_used: number;
  heap_total: number;
  external: number;
  rss_anon?: number;
  rss_file?: number;
  rss_shmem?: number;
  disk: number;
  head: number;
  board_events: number;
  dropped: number;
  archived: number;
  oldest_id: number;
  log_rows: number;
  packed_events: number;
  packed_bytes: number;
  pending_events: number;
  chunk_steps: number;
  chunk_ms_p50: number;
  chunk_ms_p99: number;
  chunk_ms_max: number;
  pack_steps: number;
  pack_ms_p50: number;
  pack_ms_max: number;
  /** Each step's time on the server's thread (ms), by what the step did. */
  busy: Record<string, { steps: number; p50: number; p99: number; max: number }>;
  /** The slowest steps since the last sample. */
  slowest: { kind: string; busy: number; scanned: number; dropped: number }[];
}

/** Events a day the simulator schedules for `sportIds` (all when undefined), over a month. */
function eventsPerDay(sportIds: readonly number[] | undefined): number {
  const first = Math.floor(Date.UTC(2026, 10, 1) / 86_400_000);
  let n = 0;
  for (const s of SPORTS) {
    if (sportIds && !sportIds.includes(s.sport_id)) continue;
    for (let d = first; d < first + 30; d++) n += daySchedule(1, s, d, () => true).length;
  }
  return n / 30;
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, fallback: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
  };
  const days = Number(opt('days', '30'));
  const step = Number(opt('step-minutes', '30'));
  const sportsArg = opt('sports', '3,4,5,21');
  const sportIds = sportsArg === 'all' ? undefined : sportsArg.split(',').map(Number);
  const out = opt('out', '');
  const flags = [...startScriptNodeFlags(), ...opt('node-flags', '').split(/\s+/).filter(Boolean)];
  const cpu = opt('cpu', '');
  const dataDir = makeTmpDir('retention');
  const samples: Sample[] = [];
  // Bundled as bin/oddsbase.js bundles the server, so that its memory is the shipped server's.
  const child = spawnNode(
    [
      ...flags,
      await bundle('bench/retention-server.ts'),
      dataDir,
      String(days),
      String(step),
      ...(sportIds ? [sportIds.join(',')] : []),
    ],
    cpu ? { cpu } : {},
  );
  let pending = '';
  child.proc.stdout?.on('data', (b: Buffer) => {
    pending += b.toString();
    for (let i = pending.indexOf('\n'); i >= 0; i = pending.indexOf('\n')) {
      const line = pending.slice(0, i);
      pending = pending.slice(i + 1);
      if (!line.startsWith('{')) continue;
      const s = JSON.parse(line) as Sample;
      samples.push(s);
      if (out) writeFileSync(out, JSON.stringify(samples, null, 1));
      log(
        `day ${s.day.toFixed(1)}: disk ${mb(s.disk)}, rss ${mb(s.rss)} (anon ${mb(s.rss_anon ?? NaN)}, ` +
          `file ${mb(s.rss_file ?? NaN)}, shmem ${mb(s.rss_shmem ?? NaN)}), heap ${mb(s.heap_used)} of ${mb(s.heap_total)}, ` +
          `external ${mb(s.external)}, ` +
          `board ${s.board_events} events, head ${s.head}, log ${s.log_rows} rows, dropped ${s.dropped}, ` +
          `archived ${s.archived}, packed ${s.packed_events} (${mb(s.packed_bytes)}), pending ${s.pending_events}; ` +
          `chunk steps ${s.chunk_steps} p50 ${s.chunk_ms_p50.toFixed(1)} p99 ${s.chunk_ms_p99.toFixed(1)} max ${s.chunk_ms_max.toFixed(1)} ms, ` +
          `pack steps ${s.pack_steps} p50 ${s.pack_ms_p50.toFixed(1)} max ${s.pack_ms_max.toFixed(1)} ms (${s.wall_s.toFixed(0)} s)`,
      );
      for (const [kind, b] of Object.entries(s.busy)) {
        if (b.steps === 0) continue;
        log(
          `  on the thread, ${kind} steps: ${b.steps}, p50 ${b.p50.toFixed(2)} p99 ${b.p99.toFixed(2)} max ${b.max.toFixed(2)} ms`,
        );
      }
    }
  });
  const code = await new Promise<number | null>((resolve) => child.proc.once('exit', resolve));
  if (args.includes('--keep')) log(`data directory kept: ${dataDir}`);
  else removeDir(dataDir);
  if (code !== 0) throw new Error(`the server exited with ${code}: ${child.output().slice(-2000)}`);
  const lastWeek = samples.filter((s) => s.day > days - 7);
  const first = samples.find((s) => s.day >= days - 7) ?? samples[0]!;
  const last = samples.at(-1)!;
  const growthPerDay = (last.disk - first.disk) / Math.max(1, last.day - first.day);
  const scale = eventsPerDay(undefined) / eventsPerDay(sportIds);
  const m = machineInfo();
  const lines = [
    `- machine: ${m.model}, ${m.nproc} CPUs, ${m.memory}, node ${m.node}; ${new Date().toISOString().slice(0, 10)}`,
    `- server: \`node ${flags.join(' ')}\` (npm start's flags, then --node-flags), default retention and board keep time; ` +
      `sports ${sportsArg} (${eventsPerDay(sportIds).toFixed(1)} events a day of the simulator's ${eventsPerDay(undefined).toFixed(0)}), ` +
      `${days} days in steps of ${step} simulated minutes, ${last.wall_s.toFixed(0)} s`,
    `- last week, medians: data directory ${mb(median(lastWeek.map((s) => s.disk)))}, RSS ${mb(median(lastWeek.map((s) => s.rss)))}, ` +
      `heap used ${mb(median(lastWeek.map((s) => s.heap_used)))}, board ${median(lastWeek.map((s) => s.board_events))} events`,
    `- peaks: data directory ${mb(Math.max(...samples.map((s) => s.disk)))}, RSS ${mb(Math.max(...samples.map((s) => s.rss)))}`,
    `- growth over the last week: ${mb(growthPerDay)} a day (x${scale.toFixed(1)} for every sport: ${mb(growthPerDay * scale)} a day)`,
  ];
  for (const l of lines) log(l);
  log(
    '| simulated day | data directory | RSS | heap used | board events | log rows | packed events | packed records | rows dropped |',
  );
  log('|---:|---:|---:|---:|---:|---:|---:|---:|---:|');
  for (const s of samples.filter((x) => Number.isInteger(x.day))) {
    log(
      `| ${s.day} | ${mb(s.disk)} | ${mb(s.rss)} | ${mb(s.heap_used)} | ${s.board_events} | ${s.log_rows.toLocaleString('en')} | ` +
        `${s.packed_events} | ${mb(s.packed_bytes)} | ${s.dropped.toLocaleString('en')} |`,
    );
  }
}

if (isMain(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
}
