/**
 * What the access layer (key lookup, burst limit, caps, metering and headers) costs a snapshot
 * request: GET /api/v2/sports/4/events/{today} on the same data, served by the same app built with
 * and without access, side by side.
 *
 *   node --import tsx bench/access.ts [--rounds 5] [--duration 8]
 *
 * The data directory is filled by one start of `oddsbase serve` with the simulator; then two
 * servers (bench/store-server.ts) open it without a simulator, both pinned to CPU 0, and this
 * process runs autocannon (50 connections) on CPU 1, alternating between them. Both get the same
 * request, key header included, so the only difference is the server.
 */
import autocannon from 'autocannon';
import {
  arg,
  cleanupOnSignal,
  cpuSeconds,
  createKey,
  freePort,
  int,
  isMain,
  log,
  median,
  pct,
  pinSelf,
  removeDir,
  spawnNode,
  startOddsbase,
  todayUtc,
  waitForHttp,
} from './lib.ts';

export const TARGET_RATIO = 0.9;

export interface AccessResult {
  withRps: number[];
  withoutRps: number[];
  /** Server CPU time per request, in µs. */
  withUs: number[];
  withoutUs: number[];
  /** Requests per server CPU-second, with / without: what the layer leaves of the server's capacity. */
  ratio: number;
  bytes: number;
}

async function load(url: string, headers: Record<string, string>, durationS: number, pid: number) {
  const cpu0 = cpuSeconds(pid) ?? 0;
  const r = await autocannon({ url, connections: 50, duration: durationS, headers });
  const cpu = (cpuSeconds(pid) ?? 0) - cpu0;
  return {
    rps: r.requests.average,
    p99: r.latency.p99,
    non2xx: r.non2xx + r.errors,
    usPerRequest: (cpu * 1e6) / Math.max(1, r.requests.total),
  };
}

export async function runAccess(rounds = 5, durationS = 8): Promise<AccessResult> {
  const filled = await startOddsbase({ port: await freePort(), cpu: '0' });
  const dataDir = filled.dataDir;
  await filled.child.stop();
  const key = createKey(dataDir, 'enterprise', 1_000_000);
  const ports = { with: await freePort(), without: await freePort() };
  const servers = (['with', 'without'] as const).map((mode) =>
    spawnNode(['--import', 'tsx', 'bench/store-server.ts', dataDir, String(ports[mode]), mode], {
      cpu: '0',
    }),
  );
  const undo = cleanupOnSignal(async () => {
    await Promise.all(servers.map((s) => s.stop()));
    removeDir(dataDir);
  });
  try {
    const path = `/api/v2/sports/4/events/${todayUtc()}`;
    const urls = {
      with: `http://127.0.0.1:${ports.with}${path}`,
      without: `http://127.0.0.1:${ports.without}${path}`,
    };
    await waitForHttp(urls.with, servers[0]!, 120_000);
    await waitForHttp(urls.without, servers[1]!, 120_000);
    const headers = { 'X-Service-Key': key };
    const body = await (await fetch(urls.with, { headers })).text();
    const same = await (await fetch(urls.without)).text();
    if (body !== same) throw new Error('the two servers do not answer with the same bytes');
    const previous = pinSelf('1');
    const pids = { with: servers[0]!.pid, without: servers[1]!.pid };
    const rps = { with: [] as number[], without: [] as number[] };
    const us = { with: [] as number[], without: [] as number[] };
    await load(urls.with, headers, 2, pids.with);
    await load(urls.without, headers, 2, pids.without);
    for (let i = 0; i < rounds; i++) {
      for (const mode of ['with', 'without'] as const) {
        const r = await load(urls[mode], headers, durationS, pids[mode]);
        if (r.non2xx > 0) throw new Error(`${mode}: ${r.non2xx} failed requests`);
        rps[mode].push(r.rps);
        us[mode].push(r.usPerRequest);
        log(
          `  round ${i + 1}: ${mode.padEnd(7)} ${int(r.rps)} req/s, p99 ${r.p99} ms, ${r.usPerRequest.toFixed(1)} µs CPU/req`,
        );
      }
    }
    if (previous) pinSelf(previous);
    return {
      withRps: rps.with,
      withoutRps: rps.without,
      withUs: us.with,
      withoutUs: us.without,
      ratio: median(us.without) / median(us.with),
      bytes: Buffer.byteLength(body),
    };
  } finally {
    undo();
    await Promise.all(servers.map((s) => s.stop()));
    removeDir(dataDir);
  }
}

export function accessMarkdown(r: AccessResult): string {
  const throughput = median(r.withRps) / median(r.withoutRps);
  return [
    '### Access layer cost (`GET /api/v2/sports/4/events/{today}`, 50 connections, medians)',
    '',
    '| app | req/s | server CPU µs/request |',
    '|---|---:|---:|',
    `| with access (key, burst, caps, metering, headers) | ${int(median(r.withRps))} | ${median(r.withUs).toFixed(1)} |`,
    `| without access | ${int(median(r.withoutRps))} | ${median(r.withoutUs).toFixed(1)} |`,
    '',
    `- response ${int(r.bytes)} bytes; runs with: ${r.withRps.map(int).join(', ')}; without: ${r.withoutRps.map(int).join(', ')}`,
    `- throughput with / without: ${pct(throughput)}, target >= ${pct(TARGET_RATIO)} (the layer costs at most 10% of the ` +
      `throughput): ${throughput >= TARGET_RATIO ? 'met' : 'NOT met'}`,
    '- the client (autocannon on one core) saturates before the server does, so req/s flatters the slower server;',
    '  a stricter figure is the server capacity: requests per server CPU-second, with / without:',
    `  ${pct(r.ratio)} (${r.ratio >= TARGET_RATIO ? 'at or above' : '**below**'} ${pct(TARGET_RATIO)})`,
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const r = await runAccess(Number(arg('--rounds') ?? 5), Number(arg('--duration') ?? 8));
  process.stdout.write(`${accessMarkdown(r)}\n`);
}
