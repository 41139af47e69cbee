/**
 * The server of bench/retention.ts, run under `npm start`'s node flags: the real server (startServer,
 * default limits: retention and board keep time included) driven by an injected clock that jumps
 * `STEP_MINUTES` of simulated time per step, so a month passes in minutes. The simulator's steps and
 * retention's steps alternate as they do on the timers of a running server (retention is let catch
 * up once per simulated hour). One JSON line per simulated `REPORT_HOURS` on stdout.
 *
 * `node [flags] --import tsx bench/retention-server.ts DATA_DIR DAYS STEP_MINUTES [SPORT_IDS]`
 * (SPORT_IDS: comma-separated, every sport when absent).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { resolveServeConfig } from '../src/config.ts';
import { Simulator } from '../src/feeds/simulator/index.ts';
import { startServer } from '../src/server.ts';
import { STORE_FILE } from '../src/store/sqlite/database.ts';
import { quantile, stepProbe } from './retention-probe.ts';

const [dataDir, daysRaw, stepRaw, sportsRaw] = process.argv.slice(2);
const sportIds = sportsRaw ? sportsRaw.split(',').map(Number) : undefined;
const days = Number(daysRaw);
const stepMs = Number(stepRaw) * 60_000;
if (!dataDir || !(days > 0) || !(stepMs > 0)) {
  process.stderr.write('usage: retention-server.ts DATA_DIR DAYS STEP_MINUTES [SPORT_IDS]\n');
  process.exit(2);
}
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const REPORT_HOURS = 12;
const clock = { now: Date.UTC(2026, 10, 1, 12, 0, 0) };
const now = () => clock.now;
const config = resolveServeConfig(
  { dataDir, port: 0, host: '127.0.0.1', simulator: false, metricsPort: 0, logLevel: 'silent' },
  // The timer is replaced by the steps below; every other limit is the default.
  { RETENTION_TICK_MS: '3600000' },
);
const server = await startServer(config, { now, say: () => {} });
const { services, board, ledger } = server;
const sim = new Simulator({ seed: 1, speed: 1, sink: ledger, state: board, now, sportIds });
// A second, read-only connection for the figures: packed records, what waits, the log's rows.
const reader = new Database(join(dataDir, STORE_FILE), { readonly: true });
const probe = stepProbe(services, join(dataDir, STORE_FILE));
/** Resident memory by kind (Linux): anonymous (heaps, malloc), file-backed pages, shared memory. */
function residentParts(): { rss_anon?: number; rss_file?: number; rss_shmem?: number } {
  try {
    const status = readFileSync('/proc/self/status', 'utf8');
    const kb = (name: string) => Number(new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? NaN) * 1024;
    return { rss_anon: kb('RssAnon'), rss_file: kb('RssFile'), rss_shmem: kb('RssShmem') };
  } catch {
    return {};
  }
}
const start = clock.now;
const t0 = performance.now();
await sim.backfill();
const report = async (day: number) => {
  const m = process.memoryUsage();
  const line = {
    day,
    wall_s: (performance.now() - t0) / 1000,
    rss: m.rss,
    heap_used: m.heapUsed,
    heap_total: m.heapTotal,
    external: m.external,
    ...residentParts(),
    disk: await services.bytesOnDisk(),
    head: ledger.headId,
    board_events: board.events.size,
    archived_headers: board.archivedHeaders.size,
    seasons: board.seasons.size,
    dropped: services.retention.dropped,
    archived: services.retention.archived,
    oldest_id: (await services.store.retained()).oldestId,
    log_rows: reader.prepare('SELECT count(*) FROM changes').pluck().get() as number,
    packed_events: reader.prepare('SELECT count(*) FROM archived_rows').pluck().get() as number,
    packed_bytes: reader.prepare('SELECT coalesce(sum(length(body)), 0) FROM archived_rows').pluck().get() as number,
    pending_events: reader.prepare('SELECT count(*) FROM archive_pending').pluck().get() as number,
    chunk_steps: probe.chunkWallMs.length,
    chunk_ms_p50: quantile(probe.chunkWallMs, 0.5),
    chunk_ms_p99: quantile(probe.chunkWallMs, 0.99),
    chunk_ms_max: quantile(probe.chunkWallMs, 1),
    pack_steps: probe.packWallMs.length,
    pack_ms_p50: quantile(probe.packWallMs, 0.5),
    pack_ms_max: quantile(probe.packWallMs, 1),
    busy: Object.fromEntries(
      Object.entries(probe.byKind).map(([k, xs]) => [
        k,
        { steps: xs.length, p50: quantile(xs, 0.5), p99: quantile(xs, 0.99), max: quantile(xs, 1) },
      ]),
    ),
    slowest: probe.slowest,
  };
  probe.reset();
  process.stdout.write(`${JSON.stringify(line)}\n`);
};
await report(0);
for (let t = start + stepMs; t <= start + days * 24 * HOUR; t += stepMs) {
  clock.now = t;
  await sim.step(t);
  // The server's timers and immediates run between the steps, as they do between a live simulator's:
  // a loop of resolved promises alone never lets them (at a one-second step the heap then ran out).
  if (Math.floor(t / MINUTE) !== Math.floor((t - stepMs) / MINUTE)) await new Promise((r) => setImmediate(r));
  if (Math.floor(t / HOUR) !== Math.floor((t - stepMs) / HOUR)) await services.retention.catchUp();
  if (Math.floor(t / (REPORT_HOURS * HOUR)) !== Math.floor((t - stepMs) / (REPORT_HOURS * HOUR))) {
    await report((t - start) / (24 * HOUR));
  }
}
// A run that ends between two reports reports its last part too.
if (((days * 24) / REPORT_HOURS) % 1 !== 0) await report(days);
reader.close();
probe.close();
await server.close();
process.exit(0);
