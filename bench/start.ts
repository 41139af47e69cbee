/**
 * Start times of the server as `npm start` runs it (its node flags), on a fresh data directory and
 * again on the directory it filled: seconds from the spawn to the port answering (/healthz 200), to
 * serving live data (/readyz 200) and, for a first start, to the history being complete (/readyz
 * `history` is `complete`, or absent in a server that fills all of it before it serves). The restart
 * comes once the history is complete, so that every checkout restarts on the same whole history.
 * With `--before DIR` (another checkout of oddsbase, with its node_modules), each run starts that
 * checkout's server and this one's in turn, so that both see the same load. Prints each run and
 * the medians. `--settle S` waits S seconds more before the restart: a restart within 5 minutes of
 * the last changes replays those described within the longest delay (the background part of a first
 * fill among them), one later loads them.
 *
 * With `--store DIR` (a data directory a server has filled), each run skips the fresh start: it
 * starts and stops the server on a copy of DIR, then measures the restart after that clean stop
 * (for a checkout that saves its board at shutdown, a restart from that snapshot). Both checkouts
 * then restart on the same history, and a run takes a minute instead of a whole first fill.
 *
 *   node --import tsx bench/start.ts [--runs 3] [--before DIR] [--settle S] [--store DIR]
 */
import { spawn } from 'node:child_process';
import { cpSync } from 'node:fs';
import { once } from 'node:events';
import { setTimeout as sleep } from 'node:timers/promises';
import { arg, makeTmpDir, median, removeDir, ROOT, startScriptNodeFlags } from './lib.ts';

const runs = Number(arg('--runs') ?? 3) || 3;
const before = arg('--before');
const settleMs = Number(arg('--settle') ?? 0) * 1000;
const store = arg('--store');

interface Timing {
  answered: number;
  ready: number;
  /** Seconds to a complete history (a first start only). */
  complete?: number;
  /** What the start said of how it got its board (a snapshot taken back or left aside, or a load). */
  board: string;
}

async function startOnce(checkout: string, dataDir: string, waitComplete: boolean): Promise<Timing> {
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [
      ...startScriptNodeFlags(),
      'bin/oddsbase.js',
      'serve',
      '--port',
      '0',
      '--host',
      '127.0.0.1',
      '--data-dir',
      dataDir,
    ],
    {
      cwd: checkout,
      stdio: ['ignore', 'ignore', 'pipe'],
    },
  );
  let err = '';
  child.stderr.on('data', (b: Buffer) => (err += b.toString()));
  const exited = once(child, 'exit');
  const since = () => (performance.now() - started) / 1000;
  let url = '';
  let answered = 0;
  let ready = 0;
  try {
    for (;;) {
      if (child.exitCode !== null) throw new Error(`the server exited:\n${err}`);
      url ||= /oddsbase starting on (\S+):/.exec(err)?.[1] ?? '';
      if (url) {
        const probe = (path: string) =>
          fetch(url + path).then(
            async (r) => ({ ok: r.status === 200, body: (await r.json().catch(() => ({}))) as { history?: string } }),
            () => ({ ok: false, body: {} as { history?: string } }),
          );
        if (!answered && (await probe('/healthz')).ok) answered = since();
        if (answered) {
          const r = await probe('/readyz');
          if (r.ok) {
            ready ||= since();
            const board =
              /oddsbase: (took back[^\n]*|[^\n]*board snapshot[^\n]*|loading the store[^\n]*)/.exec(err)?.[1] ?? '';
            if (!waitComplete) return { answered, ready, board };
            if (r.body.history === undefined || r.body.history === 'complete')
              return { answered, ready, complete: since(), board };
          }
        }
      }
      await sleep(50);
    }
  } finally {
    child.kill('SIGTERM');
    await exited;
  }
}

const checkouts = before ? [['before', before] as const, ['after', ROOT] as const] : [['this', ROOT] as const];
const results = new Map<string, { fresh: Timing[]; restart: Timing[] }>(
  checkouts.map(([name]) => [name, { fresh: [], restart: [] }]),
);
const s = (x: number | undefined) => (x === undefined || Number.isNaN(x) ? '-' : `${x.toFixed(1)} s`);
const firstStart = store ? 'first start on the copy' : 'fresh';
for (let i = 0; i < runs; i++) {
  for (const [name, checkout] of checkouts) {
    const dataDir = makeTmpDir('start');
    try {
      const r = results.get(name)!;
      if (store) cpSync(store, dataDir, { recursive: true });
      const f = await startOnce(checkout, dataDir, !store);
      await sleep(settleMs);
      const again = await startOnce(checkout, dataDir, false);
      r.fresh.push(f);
      r.restart.push(again);
      console.log(
        `run ${i + 1} ${name}: ${firstStart} answered ${s(f.answered)}, ready ${s(f.ready)}, history complete ${s(f.complete)}; ` +
          `restart answered ${s(again.answered)}, ready ${s(again.ready)} (${again.board})`,
      );
    } finally {
      removeDir(dataDir);
    }
  }
}
for (const [name, { fresh, restart }] of results) {
  const m = (xs: Timing[], k: 'answered' | 'ready' | 'complete') => s(median(xs.map((x) => x[k] ?? Number.NaN)));
  console.log(
    `median of ${runs} ${name}: ${firstStart} answered ${m(fresh, 'answered')}, ready ${m(fresh, 'ready')}, history complete ${m(fresh, 'complete')}; ` +
      `restart answered ${m(restart, 'answered')}, ready ${m(restart, 'ready')}`,
  );
}
