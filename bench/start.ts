/**
 * Start times of the server as `npm start` runs it (its node flags), on a fresh data directory and
 * again on the directory just filled: seconds from the spawn to the port answering (/healthz 200)
 * and to serving live data (/readyz 200). Prints each run and the medians.
 *
 *   node --import tsx bench/start.ts [--runs 3]
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { makeTmpDir, median, removeDir, ROOT, startScriptNodeFlags } from './lib.ts';

const runs = Number(process.argv[process.argv.indexOf('--runs') + 1] ?? 3) || 3;

interface Timing {
  answered: number;
  ready: number;
}

async function startOnce(dataDir: string): Promise<Timing> {
  const started = performance.now();
  const child = spawn(process.execPath, [...startScriptNodeFlags(), 'bin/oddsbase.js', 'serve', '--port', '0', '--host', '127.0.0.1', '--data-dir', dataDir], {
    cwd: ROOT,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = once(child, 'exit');
  let url = '';
  let answered = 0;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited:\n${err}`);
      url ||= /oddsbase starting on (\S+):/.exec(err)?.[1] ?? '';
      if (url) {
        const ok = (path: string) => fetch(url + path).then((r) => r.status === 200, () => false);
        if (!answered && (await ok('/healthz'))) answered = (performance.now() - started) / 1000;
        if (answered && (await ok('/readyz'))) return { answered, ready: (performance.now() - started) / 1000 };
      }
      await sleep(50);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const fresh: Timing[] = [];
const restart: Timing[] = [];
for (let i = 0; i < runs; i++) {
  const dataDir = makeTmpDir('start');
  try {
    fresh.push(await startOnce(dataDir));
    restart.push(await startOnce(dataDir));
    const [f, r] = [fresh.at(-1)!, restart.at(-1)!];
    console.log(`run ${i + 1}: fresh answered ${f.answered.toFixed(1)} s, ready ${f.ready.toFixed(1)} s; restart answered ${r.answered.toFixed(1)} s, ready ${r.ready.toFixed(1)} s`);
  } finally {
    removeDir(dataDir);
  }
}
const m = (xs: Timing[], k: keyof Timing) => median(xs.map((x) => x[k])).toFixed(1);
console.log(`median of ${runs}: fresh answered ${m(fresh, 'answered')} s, ready ${m(fresh, 'ready')} s; restart answered ${m(restart, 'answered')} s, ready ${m(restart, 'ready')} s`);
