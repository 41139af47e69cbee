/**
 * What a refused request costs the server under a storm of 429s: 50 connections poll one snapshot
 * URL with an Ultra key (10 requests a second), so nearly every answer is the burst ceiling's 429.
 * The servers run as `npm start` runs them (its node flags) with `--no-simulator` on an empty data
 * directory (a refusal reads no data), pinned to CPU 0; autocannon runs here, on CPU 1. With
 * `--before DIR` (another checkout of oddsbase, with its node_modules), each round loads that
 * checkout's server and this one's in turn, so that both see the same load.
 *
 *   node --import tsx bench/refusals.ts [--rounds 3] [--duration 8] [--before DIR]
 */
import autocannon from 'autocannon';
import {
  arg,
  cleanupOnSignal,
  type Child,
  cpuSeconds,
  createKey,
  log,
  makeTmpDir,
  median,
  onlyKnownArgs,
  pinSelf,
  removeDir,
  ROOT,
  spawnStoreServer,
  todayUtc,
  waitForHttp,
} from './lib.ts';

onlyKnownArgs(process.argv.slice(2), ['--rounds', '--duration', '--before']);
const rounds = Number(arg('--rounds') ?? 3);
const durationS = Number(arg('--duration') ?? 8);
const before = arg('--before');
const checkouts = before ? [['before', before] as const, ['after', ROOT] as const] : [['this', ROOT] as const];

interface Served {
  name: string;
  child: Child;
  url: string;
  key: string;
  dataDir: string;
}

const path = `/api/v2/sports/4/events/${todayUtc()}`;
const served: Served[] = [];
const undo = cleanupOnSignal(async () => {
  for (const s of served) {
    await s.child.stop();
    removeDir(s.dataDir);
  }
});
try {
  for (const [name, checkout] of checkouts) {
    const dataDir = makeTmpDir('refusals');
    // Made before the start, so the server makes no demo key; Ultra's ceiling is 10 a second.
    const key = createKey(dataDir, 'ultra');
    const { child, url } = await spawnStoreServer(dataDir, { cpu: '0', checkout });
    served.push({ name, child, url, key, dataDir });
    await waitForHttp(`${url}/api/v2/sports`, child, 120_000, { history: false });
  }
  const previous = pinSelf('1');
  const runs = new Map(served.map((s) => [s.name, [] as { us: number; refused: number; rps: number }[]]));
  for (let round = 0; round <= rounds; round++) {
    for (const s of served) {
      const cpu0 = cpuSeconds(s.child.pid) ?? 0;
      const r = await autocannon({
        url: s.url + path,
        connections: 50,
        // Round 0 warms both servers up (their routes' compilers, the JIT) and is not counted.
        duration: round === 0 ? 2 : durationS,
        headers: { 'X-Service-Key': s.key },
      });
      const cpu = (cpuSeconds(s.child.pid) ?? 0) - cpu0;
      const total = Math.max(1, r.requests.total);
      const refused = r.non2xx / total;
      const us = (cpu * 1e6) / total;
      if (round === 0) continue;
      runs.get(s.name)!.push({ us, refused, rps: r.requests.average });
      log(
        `round ${round} ${s.name.padEnd(6)} ${Math.round(r.requests.average)} req/s, ${(refused * 100).toFixed(2)}% refused, ${us.toFixed(1)} µs server CPU/request`,
      );
    }
  }
  if (previous) pinSelf(previous);
  for (const [name, r] of runs) {
    process.stdout.write(
      `median of ${rounds} ${name}: ${median(r.map((x) => x.us)).toFixed(1)} µs server CPU/request, ` +
        `${Math.round(median(r.map((x) => x.rps)))} req/s, ${(median(r.map((x) => x.refused)) * 100).toFixed(2)}% refused\n`,
    );
  }
} finally {
  undo();
  for (const s of served) {
    await s.child.stop();
    removeDir(s.dataDir);
  }
}
