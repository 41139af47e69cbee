/**
 * Mirror lag, polling mode: a price changed on an upstream until the mirror serves it.
 *
 *   node --import tsx bench/mirror-lag.ts [--changes 40] [--poll-ms 1000] [--liquidity]
 *
 * Two servers in this process, each as `serve` opens it on the embedded store: an upstream with
 * `--feed ingest` holding one NBA event (moneyline, spreads and totals at two books), and a mirror
 * of it (`--feed upstream --upstream-mode poll --upstream-poll-ms POLL`). After the mirror has
 * caught up, `changes` times:
 * the Boston moneyline at book 19 is moved by a POST /admin/v1/ingest to the upstream; from its 200
 * (the change committed upstream) the clock runs until the mirror's REST answer shows the new price
 * (GET /api/v2/events/{id}?market_ids=1, asked every 10 ms) and until a client of the mirror's
 * /api/v2/ws/markets receives it. Changes are spaced by a random share of the poll interval, so they
 * land at every phase of the mirror's poll. Issue 42's target: within one poll interval.
 * `--liquidity`: each move carries a new `liquidity_usd` too, which the markets delta does not, so
 * the mirror reads the event's market before it writes the row; the lag runs until the mirror
 * serves both the price and its liquidity.
 */
import { writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { WebSocket } from 'ws';
import { generateAdminToken, newAdminTokenRecord } from '../src/access/admin-tokens.ts';
import { generateKey, newKeyRecord } from '../src/access/keys.ts';
import { resolveServeConfig } from '../src/config.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { nbaEvent, nbaPrices, price } from '../test/helpers/fixtures.ts';
import { arg, int, isMain, log, machineInfo, makeTmpDir, median, removeDir, sleep } from './lib.ts';

const EVENT = 'lag0000000000000000000000000001';
/** How often the mirror's REST answer is asked while a change is awaited. */
const ASK_MS = 10;

function option(name: string, fallback: number): number {
  return Number(arg(`--${name}`) ?? fallback);
}

/** The q-quantile of `xs` (nearest rank). */
function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(q * s.length) - 1))]!;
}

async function serve(dataDir: string, input: Parameters<typeof resolveServeConfig>[0]): Promise<RunningServer> {
  return startServer(resolveServeConfig({ port: 0, host: '127.0.0.1', dataDir, logLevel: 'silent', ...input }, {}), {
    say: () => {},
  });
}

/** An Enterprise key with a per-second ceiling the bench never reaches. */
async function enterpriseKey(server: RunningServer): Promise<string> {
  const key = generateKey();
  await server.keys.insert(newKeyRecord(key, 'enterprise', { custom: JSON.stringify({ burstPerSecond: 1e9 }) }));
  return key;
}

const local = (server: RunningServer) => server.url.replace('localhost', '127.0.0.1');

export interface MirrorLagResult {
  pollMs: number;
  liquidity: boolean;
  rest: number[];
  stream: number[];
  loadBefore: number;
  loadAfter: number;
}

export async function runMirrorLag(changes: number, pollMs: number, liquidity = false): Promise<MirrorLagResult> {
  const upDir = makeTmpDir('mirror-up');
  const mirrorDir = makeTmpDir('mirror');
  const opened: RunningServer[] = [];
  let socket: WebSocket | undefined;
  try {
    const upstream = await serve(upDir, { feed: 'ingest' });
    opened.push(upstream);
    const token = generateAdminToken();
    await upstream.services.adminTokens.insert(newAdminTokenRecord(token));
    let batch = 0;
    let clock = Date.now() - 3_600_000;
    const ingest = async (records: unknown[]) => {
      const res = await fetch(`${local(upstream)}/admin/v1/ingest`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ batch_id: `lag-${++batch}`, at: new Date((clock += 1000)).toISOString(), records }),
      });
      if (res.status !== 200) throw new Error(`ingest: ${res.status} ${await res.text()}`);
    };
    const held = nbaPrices(EVENT);
    // With --liquidity, the moved price has liquidity from the start: the mirror's catch-up learns its book carries it.
    if (liquidity) for (const u of held) if (u.affiliate_id === 19) u.liquidity_usd = 1000 + u.price;
    await ingest([{ kind: 'event', event: nbaEvent(EVENT) }, ...held]);
    const keyFile = join(mirrorDir, 'upstream.key');
    writeFileSync(keyFile, await enterpriseKey(upstream), { mode: 0o600 });
    const mirror = await serve(mirrorDir, {
      feed: 'upstream',
      upstreamUrl: local(upstream),
      upstreamKeyFile: keyFile,
      upstreamPollMs: pollMs,
      // Polling only: the default (auto) follows an oddsbase upstream's stream (bench/mirror-stream-lag.ts).
      upstreamMode: 'poll',
    });
    opened.push(mirror);
    const key = await enterpriseKey(mirror);
    for (;;) {
      if ((await fetch(`${local(mirror)}/readyz`)).status === 200) break;
      await sleep(50);
    }
    log(`mirror caught up; ${changes} changes, poll ${pollMs} ms`);

    /** The liquidity a move to price `p` carries, when moves carry one. */
    const depth = (p: number) => (liquidity ? 1000 + p : undefined);
    const received = new Map<number, number>();
    socket = new WebSocket(`${local(mirror).replace('http', 'ws')}/api/v2/ws/markets?event_ids=${EVENT}&market_ids=1`, {
      headers: { 'X-Service-Key': key },
    });
    socket.on('message', (data) => {
      const m = JSON.parse(String(data)) as {
        meta: { type: string };
        data: { price: string; affiliate_id: number; liquidity_usd?: number };
      };
      const p = Number(m.data.price);
      if (m.meta.type === 'market_price' && m.data.affiliate_id === 19 && m.data.liquidity_usd === depth(p))
        received.set(p, performance.now());
    });
    await new Promise<void>((resolve, reject) => socket!.once('open', resolve).once('error', reject));

    /** The moved price as the mirror's REST answer shows it, with its liquidity. */
    const shown = async (): Promise<{ price: number; liquidity_usd?: number } | undefined> => {
      const res = await fetch(`${local(mirror)}/api/v2/events/${EVENT}?market_ids=1`, {
        headers: { 'X-Service-Key': key },
      });
      const body = (await res.json()) as { events: { markets: any[] }[] };
      const ml = body.events[0]?.markets.find((m) => m.market_id === 1 && m.period_id === 0);
      return ml?.participants.find((p: any) => p.id === 2002)?.lines[0]?.prices['19'];
    };
    const rest: number[] = [];
    const stream: number[] = [];
    const loadBefore = loadavg()[0]!;
    for (let i = 0; i < changes; i++) {
      await sleep(Math.random() * pollMs);
      // Moves between +200 and +299, never the price it holds, so each is a change.
      const p = 200 + (i % 100);
      const moved = { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: p };
      const liquidity_usd = depth(p);
      await ingest([price(EVENT, liquidity_usd === undefined ? moved : { ...moved, liquidity_usd })]);
      const committed = performance.now();
      for (;;) {
        const now = await shown();
        if (now?.price === p && now.liquidity_usd === liquidity_usd) break;
        await sleep(ASK_MS);
      }
      rest.push(performance.now() - committed);
      const deadline = performance.now() + 10 * pollMs;
      while (!received.has(p) && performance.now() < deadline) await sleep(ASK_MS);
      const at = received.get(p);
      if (at === undefined) throw new Error(`the stream client never received ${p}`);
      stream.push(at - committed);
      received.clear();
      log(`  change ${i + 1}: REST ${int(rest.at(-1)!)} ms, stream ${int(stream.at(-1)!)} ms`);
    }
    return { pollMs, liquidity, rest, stream, loadBefore, loadAfter: loadavg()[0]! };
  } finally {
    socket?.close();
    for (const s of opened.reverse()) await s.close();
    removeDir(upDir);
    removeDir(mirrorDir);
  }
}

export function mirrorLagMarkdown(r: MirrorLagResult): string {
  const m = machineInfo();
  const row = (what: string, xs: number[]) =>
    `| ${what} | ${int(median(xs))} | ${int(quantile(xs, 0.99))} | ${int(Math.max(...xs))} | ${quantile(xs, 0.99) <= r.pollMs ? 'met' : '**missed**'} |`;
  return [
    `### Mirror lag, polling (${r.rest.length} changes, poll interval ${int(r.pollMs)} ms${r.liquidity ? ', liquidity moving with the price' : ''})`,
    '',
    '| served by the mirror | p50 ms | p99 ms | max ms | p99 within one poll interval |',
    '|---|---:|---:|---:|---|',
    row('REST (GET /api/v2/events/{id})', r.rest),
    row('stream (/api/v2/ws/markets)', r.stream),
    '',
    `- ${new Date().toISOString().slice(0, 16)} UTC, ${m.model}, ${m.nproc} cores, Node ${m.node}`,
    `- load average ${r.loadBefore.toFixed(1)} before, ${r.loadAfter.toFixed(1)} after, on ${cpus().length} cores`,
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const r = await runMirrorLag(option('changes', 40), option('poll-ms', 1000), process.argv.includes('--liquidity'));
  process.stdout.write(`${mirrorLagMarkdown(r)}\n`);
}
