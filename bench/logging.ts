/**
 * What logging costs a snapshot request: GET /api/v2/sports/4/events/{today} on servers that differ
 * only in their logging flags, side by side in one run.
 *
 *   node --import tsx bench/logging.ts [--rounds 5] [--duration 8] [--modes default,off,access-log]
 *
 * One start of `oddsbase serve` (the simulator fills a history) makes a data directory; each mode then
 * gets its own copy and runs `node <npm start's node flags> bin/oddsbase.js serve --no-simulator` on
 * it with the mode's flags, all pinned to CPU 0; this process runs autocannon (50 connections) on
 * CPU 1, one mode after the other in each round. The modes: `default` (exactly `npm start`'s
 * logging), `off` (`--log-level silent`), `access-log` (a line per request). The servers' standard
 * output is a pipe this process reads, as a log collector would.
 */
import { copyFileSync, existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import autocannon from 'autocannon';
import {
  arg,
  type Child,
  cleanupOnSignal,
  cpuSeconds,
  createKey,
  freePort,
  int,
  isMain,
  log,
  makeTmpDir,
  median,
  pct,
  pinSelf,
  removeDir,
  spawnStoreServer,
  startOddsbase,
  todayUtc,
  waitForHttp,
} from './lib.ts';

/** The default may cost at most this share of the server's CPU per request over logging off. */
export const MAX_OVERHEAD = 0.05;

const MODES: Record<string, string[]> = {
  default: [],
  off: ['--log-level', 'silent'],
  'access-log': ['--access-log'],
};

export interface LoggingResult {
  modes: string[];
  rps: Record<string, number[]>;
  /** Server CPU time per request, in µs. */
  us: Record<string, number[]>;
  /** Bytes the server wrote to standard output per request, per mode (median over rounds). */
  logBytes: Record<string, number>;
  bytes: number;
}

async function load(url: string, headers: Record<string, string>, durationS: number, pid: number) {
  const cpu0 = cpuSeconds(pid) ?? 0;
  const r = await autocannon({ url, connections: 50, duration: durationS, headers });
  const cpu = (cpuSeconds(pid) ?? 0) - cpu0;
  return {
    rps: r.requests.average,
    p99: r.latency.p99,
    failed: r.non2xx + r.errors,
    requests: r.requests.total,
    usPerRequest: (cpu * 1e6) / Math.max(1, r.requests.total),
  };
}

/** A copy of a stopped server's data directory (the store file and its write-ahead log). */
function copyDataDir(from: string, to: string): void {
  mkdirSync(to, { recursive: true });
  for (const f of ['oddsbase.db', 'oddsbase.db-wal']) {
    if (existsSync(join(from, f))) copyFileSync(join(from, f), join(to, f));
  }
}

export async function runLogging(
  rounds = 5,
  durationS = 8,
  modes: string[] = Object.keys(MODES),
): Promise<LoggingResult> {
  for (const m of modes) if (!(m in MODES)) throw new Error(`unknown mode ${m}`);
  const filled = await startOddsbase({ port: await freePort(), cpu: '0' });
  const source = filled.dataDir;
  await filled.child.stop();
  const key = createKey(source, 'enterprise', 1_000_000_000);
  const scratch = makeTmpDir('logging');
  const servers = new Map<string, { child: Child; url: string; logged: () => number }>();
  const undo = cleanupOnSignal(async () => {
    await Promise.all([...servers.values()].map((s) => s.child.stop()));
    removeDir(scratch);
    removeDir(source);
  });
  const path = `/api/v2/sports/4/events/${todayUtc()}`;
  try {
    for (const mode of modes) {
      const dir = join(scratch, mode);
      copyDataDir(source, dir);
      const { child, url: origin } = await spawnStoreServer(dir, { cpu: '0', flags: MODES[mode]! });
      let logged = 0;
      child.proc.stdout?.on('data', (b: Buffer) => (logged += b.length));
      const url = origin + path;
      servers.set(mode, { child, url, logged: () => logged });
      await waitForHttp(url, child, 120_000);
    }
    const headers = { 'X-Service-Key': key };
    const bodies = await Promise.all(modes.map(async (m) => (await fetch(servers.get(m)!.url, { headers })).text()));
    if (new Set(bodies).size !== 1) throw new Error('the servers do not answer with the same bytes');
    const previous = pinSelf('1');
    const rps: Record<string, number[]> = {};
    const us: Record<string, number[]> = {};
    const perRequest: Record<string, number[]> = {};
    for (const m of modes) {
      rps[m] = [];
      us[m] = [];
      perRequest[m] = [];
      await load(servers.get(m)!.url, headers, 2, servers.get(m)!.child.pid);
    }
    for (let i = 0; i < rounds; i++) {
      for (const m of modes) {
        const s = servers.get(m)!;
        const before = s.logged();
        const r = await load(s.url, headers, durationS, s.child.pid);
        if (r.failed > 0) throw new Error(`${m}: ${r.failed} failed requests`);
        rps[m]!.push(r.rps);
        us[m]!.push(r.usPerRequest);
        perRequest[m]!.push((s.logged() - before) / Math.max(1, r.requests));
        log(
          `  round ${i + 1}: ${m.padEnd(10)} ${int(r.rps)} req/s, p99 ${r.p99} ms, ` +
            `${r.usPerRequest.toFixed(1)} µs CPU/req`,
        );
      }
    }
    if (previous) pinSelf(previous);
    const logBytes: Record<string, number> = {};
    for (const m of modes) logBytes[m] = median(perRequest[m]!);
    return { modes, rps, us, logBytes, bytes: Buffer.byteLength(bodies[0]!) };
  } finally {
    undo();
    await Promise.all([...servers.values()].map((s) => s.child.stop()));
    removeDir(scratch);
    removeDir(source);
  }
}

export function loggingMarkdown(r: LoggingResult): string {
  const lines = [
    '### Logging cost (`GET /api/v2/sports/4/events/{today}`, 50 connections, medians)',
    '',
    '| server flags | req/s | server CPU µs/request | log bytes/request |',
    '|---|---:|---:|---:|',
  ];
  for (const m of r.modes) {
    const flags = MODES[m]!.length > 0 ? `\`${MODES[m]!.join(' ')}\`` : 'none (as `npm start`)';
    lines.push(
      `| ${m}: ${flags} | ${int(median(r.rps[m]!))} | ${median(r.us[m]!).toFixed(1)} | ${r.logBytes[m]!.toFixed(1)} |`,
    );
  }
  lines.push('', `- response ${int(r.bytes)} bytes; runs (req/s):`);
  for (const m of r.modes) lines.push(`  ${m} ${r.rps[m]!.map(int).join(', ')}`);
  const over = (mode: string) => {
    // Each round's ratio to logging off in the same round, then their median: steadier on a shared
    // machine than the ratio of the two medians, since both servers of a round see the same load.
    const off = r.us.off!;
    return median(r.us[mode]!.map((us, i) => us / off[i]! - 1));
  };
  if (r.us.default && r.us.off) {
    const d = over('default');
    lines.push(
      `- server CPU per request over logging off, median of the rounds' ratios: default ${pct(d)} ` +
        `(at most ${pct(MAX_OVERHEAD)}: ${d <= MAX_OVERHEAD ? 'met' : '**missed**'})` +
        (r.us['access-log'] ? `, --access-log ${pct(over('access-log'))}` : ''),
    );
  }
  lines.push(
    `- server CPU µs/request per round: ${r.modes.map((m) => `${m} ${r.us[m]!.map((x) => x.toFixed(1)).join(', ')}`).join('; ')}`,
  );
  return lines.join('\n');
}

if (isMain(import.meta.url)) {
  const r = await runLogging(
    Number(arg('--rounds') ?? 5),
    Number(arg('--duration') ?? 8),
    arg('--modes')?.split(',').filter(Boolean),
  );
  process.stdout.write(`${loggingMarkdown(r)}\n`);
}
