/**
 * Runs every benchmark in sequence and prints a markdown summary on stdout (progress on stderr).
 *
 *   npm run bench                     # ingest, events, v1-events, rss, delayed, delta, history, access,
 *                                     # logging, bounded
 *   npm run bench -- --only events    # a comma-separated subset
 *
 * A benchmark that fails is reported as failed; the others still run, and the exit code is 1.
 */

import { loadavg } from 'node:os';
import { accessMarkdown, runAccess } from './access.ts';
import { boundedMarkdown, runBounded } from './bounded.ts';
import { runBoxScore, runSeasonStats } from './box-score.ts';
import { delayedMarkdown, runDelayed } from './delayed.ts';
import { deltaMarkdown, runDelta } from './delta.ts';
import { eventsMarkdown, runEvents } from './events.ts';
import { historyMarkdown, runHistory } from './history.ts';
import { playsMarkdown, runPlays } from './plays.ts';
import { ingestMarkdown, runIngest } from './ingest.ts';
import { log, machineInfo } from './lib.ts';
import { loggingMarkdown, runLogging } from './logging.ts';
import { rssMarkdown, runRss } from './rss.ts';
import { runV1Events } from './v1-events.ts';

const BENCHES: Record<string, () => Promise<string>> = {
  ingest: async () => ingestMarkdown(await runIngest()),
  events: async () => eventsMarkdown(await runEvents()),
  'v1-events': async () => eventsMarkdown(await runV1Events()),
  rss: async () => rssMarkdown(await runRss()),
  delayed: async () => delayedMarkdown(await runDelayed()),
  delta: async () => deltaMarkdown(await runDelta([1_000_000, 10_000_000])),
  history: async () => historyMarkdown(await runHistory()),
  plays: async () => playsMarkdown(await runPlays()),
  'box-score': async () => eventsMarkdown(await runBoxScore()),
  'season-stats': async () => eventsMarkdown(await runSeasonStats()),
  access: async () => accessMarkdown(await runAccess()),
  logging: async () => loggingMarkdown(await runLogging()),
  bounded: async () => boundedMarkdown(await runBounded()),
};

/** The 1-minute load average (os.loadavg() always gives the 1, 5 and 15-minute ones). */
const load1 = (): number => loadavg()[0]!;

const args = process.argv.slice(2);
const only = args.indexOf('--only');
const names = only >= 0 ? (args[only + 1] ?? '').split(',').filter(Boolean) : Object.keys(BENCHES);
const runs = names.flatMap((name) => {
  const run = BENCHES[name];
  return run ? [{ name, run }] : [];
});
if (runs.length < names.length || names.length === 0) {
  process.stderr.write(`usage: run.ts [--only ${Object.keys(BENCHES).join(',')}]\n`);
  process.exit(2);
}

const m = machineInfo();
const out: string[] = [
  '## oddsbase benchmarks',
  '',
  `- date: ${new Date().toISOString()}`,
  `- machine: ${m.nproc} CPUs (${m.model}), ${m.memory} memory, Node ${m.node}, ${process.platform}`,
  '',
];
let failed = 0;
for (const { name, run } of runs) {
  log(`\n=== ${name} ===`);
  const t = Date.now();
  const load0 = load1();
  try {
    out.push(await run());
  } catch (err) {
    failed++;
    out.push(`### ${name}: FAILED`, '', '```text', String((err as Error)?.stack ?? err), '```', '');
  }
  // Other work on the machine skews the numbers; the 1-minute load average tells whether there was any.
  out.push(
    `_${name}: ${((Date.now() - t) / 1000).toFixed(0)} s; ` +
      `1-minute load average ${load0.toFixed(2)} before, ` +
      `${load1().toFixed(2)} after_`,
    '',
  );
  log(`=== ${name}: ${((Date.now() - t) / 1000).toFixed(0)} s ===`);
}
process.stdout.write(`${out.join('\n')}\n`);
if (failed > 0) process.exitCode = 1;
