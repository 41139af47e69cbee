/**
 * Retention's steps alone on a copy of a data directory (one left by `bench/retention.ts --keep`):
 * the server is started on the copy without a feed, its clock set to the last commit, then moved
 * `--step-seconds` per retention step, as the timer of a live server takes them. Reports each step's
 * time on the thread (the event loop's active time, so compression on libuv's pool is left out) by
 * what the step did, and the slowest steps. The same copy replayed before and after a change of the
 * store measures that change on the same rows.
 *
 * `node --import tsx bench/retention-replay.ts DATA_DIR [--steps 7200] [--step-seconds 1] [--pause-ms 250] [--skip-hours 0]`
 * (`--pause-ms`: the wait between steps, as the server's timer spaces them, so that the
 * checkpointer's thread keeps up as it does in service; `--skip-hours`: the clock jumps that far
 * before the first step, to reach a later moment of the data directory's life).
 */
import { copyFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { resolveServeConfig } from '../src/config.ts';
import { startServer } from '../src/server.ts';
import { openSqlite, STORE_FILE } from '../src/store/sqlite/database.ts';
import { isMain, log, makeTmpDir, removeDir } from './lib.ts';
import { quantile, stepProbe } from './retention-probe.ts';

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const opt = (name: string, fallback: string) => {
    const i = args.indexOf(`--${name}`);
    return i >= 0 && args[i + 1] !== undefined ? args[i + 1]! : fallback;
  };
  const source = args[0];
  if (!source || !existsSync(join(source, STORE_FILE)))
    throw new Error('usage: retention-replay.ts DATA_DIR [--steps N] [--step-seconds S]');
  const steps = Number(opt('steps', '7200'));
  const stepMs = Number(opt('step-seconds', '1')) * 1000;
  const pauseMs = Number(opt('pause-ms', '250'));
  const skipMs = Number(opt('skip-hours', '0')) * 3_600_000;
  const dataDir = makeTmpDir('replay');
  for (const suffix of ['', '-wal']) {
    if (existsSync(join(source, STORE_FILE + suffix)))
      copyFileSync(join(source, STORE_FILE + suffix), join(dataDir, STORE_FILE + suffix));
  }
  const probe = openSqlite(dataDir);
  const clock = { now: (probe.prepare('SELECT max(committed_ms) FROM changes').pluck().get() as number) + skipMs };
  probe.close();
  const config = resolveServeConfig(
    { dataDir, port: 0, host: '127.0.0.1', simulator: false, metricsPort: 0, logLevel: 'silent' },
    { RETENTION_TICK_MS: '3600000' },
  );
  const server = await startServer(config, { now: () => clock.now, say: () => {} });
  try {
    const { services } = server;
    const busy = stepProbe(services, join(dataDir, STORE_FILE));
    const t0 = performance.now();
    for (let i = 0; i < steps; i++) {
      clock.now += stepMs;
      await services.retention.step();
      if (pauseMs > 0) await new Promise((r) => setTimeout(r, pauseMs));
    }
    log(
      `${steps} steps of ${stepMs / 1000} s, ${pauseMs} ms apart, in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
    );
    for (const [kind, xs] of Object.entries(busy.byKind)) {
      if (xs.length === 0) continue;
      log(
        `on the thread, ${kind} steps: ${xs.length}, p50 ${quantile(xs, 0.5).toFixed(2)} p99 ${quantile(xs, 0.99).toFixed(2)} ` +
          `max ${quantile(xs, 1).toFixed(2)} ms`,
      );
    }
    const all = Object.values(busy.byKind).flat();
    log(
      `all steps: p50 ${quantile(all, 0.5).toFixed(2)} p99 ${quantile(all, 0.99).toFixed(2)} max ${quantile(all, 1).toFixed(2)} ms`,
    );
    log(`slowest: ${JSON.stringify(busy.slowest)}`);
    busy.close();
  } finally {
    await server.close();
    removeDir(dataDir);
  }
}

if (isMain(import.meta.url)) {
  main().catch((err: unknown) => {
    process.stderr.write(`${String(err)}\n`);
    process.exit(1);
  });
}
