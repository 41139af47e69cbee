/**
 * The ingest API over HTTP against the ledger's own rate on the same rows.
 *
 *   node --import tsx bench/ingest-http.ts
 *
 * The workload is bench/ingest.ts's (EVENTS events x 200 prices, each timed update changing one
 * price), cut into NDJSON batches of BATCH_SIZE. Two runs alternate, each on a fresh server
 * (`--feed ingest`, the embedded store, as `serve` opens it) whose events are set up through the
 * ledger, untimed:
 * - ledger: the same batches handed to the server's ledger as named batches (`applyNamed`), one
 *   after another, as the ingest route does;
 * - http: the batches POSTed to /admin/v1/ingest as NDJSON with their Idempotency-Key, IN_FLIGHT at
 *   a time over keep-alive connections (node:http, an agent of IN_FLIGHT sockets). The bodies are
 *   made, as UTF-8 bytes, before the clock starts; the client runs in the same process and thread as
 *   the server, so its share of the CPU (sending each body, reading each answer) counts against the
 *   API.
 * Medians of RUNS runs of each.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateAdminToken, newAdminTokenRecord } from '../src/access/admin-tokens.ts';
import { resolveServeConfig } from '../src/config.ts';
import type { PriceUpdate, UpdateBatch } from '../src/ledger/updates.ts';
import { type RunningServer, startServer } from '../src/server.ts';
import { buildWorkload } from './ingest.ts';
import { int, isMain, log, median, pct } from './lib.ts';

const BATCH_SIZE = 1000;
const BATCHES = 200;
const RUNS = 3;
const IN_FLIGHT = 2;

/** Issue 42: at least 50,000 prices a second over HTTP, and at least 70% of the ledger's rate. */
export const TARGET_PER_S = 50_000;
export const TARGET_RATIO = 0.7;

interface Batches {
  setup: UpdateBatch[];
  timed: { id: string; at: string; updates: PriceUpdate[]; body: Buffer }[];
  updates: number;
}

function batches(): Batches {
  const w = buildWorkload();
  const all = w.timed.flatMap((b) => b.updates as PriceUpdate[]);
  const timed = [];
  for (let i = 0; i < BATCHES && (i + 1) * BATCH_SIZE <= all.length; i++) {
    const updates = all.slice(i * BATCH_SIZE, (i + 1) * BATCH_SIZE);
    const at = w.timed[Math.floor((i * BATCH_SIZE) / w.timed[0]!.updates.length)]!.at;
    const body = Buffer.from(updates.map((u) => JSON.stringify(u)).join('\n'));
    timed.push({ id: `bench-${i}`, at, updates, body });
  }
  return { setup: w.setup, timed, updates: timed.length * BATCH_SIZE };
}

async function withServer<T>(b: Batches, use: (server: RunningServer, token: string) => Promise<T>): Promise<T> {
  const dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-ingest-http-'));
  const config = resolveServeConfig(
    { port: 0, host: '127.0.0.1', dataDir, feed: 'ingest', logLevel: 'silent', limits: { ingestBodyMb: 16 } },
    {},
  );
  const server = await startServer(config, { say: () => {} });
  try {
    const token = generateAdminToken();
    await server.services.adminTokens.insert(newAdminTokenRecord(token));
    for (const s of b.setup) await server.ledger.apply(s);
    return await use(server, token);
  } finally {
    await server.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** Prices a wall-clock second, and a second of the process's CPU (steadier on a busy machine). */
interface Rate {
  wall: number;
  cpu: number;
}

/** Times `run` by the wall clock and by the process's CPU (every thread, the client's share included). */
async function timed(updates: number, run: () => Promise<void>): Promise<Rate> {
  const cpu = process.cpuUsage();
  const start = performance.now();
  await run();
  const used = process.cpuUsage(cpu);
  return { wall: updates / ((performance.now() - start) / 1000), cpu: updates / ((used.user + used.system) / 1e6) };
}

async function ledgerRun(b: Batches): Promise<Rate> {
  return withServer(b, (server) =>
    timed(b.updates, async () => {
      for (const t of b.timed) await server.ledger.applyNamed({ at: t.at, updates: t.updates, batch_id: t.id });
    }),
  );
}

/** One POST of `body`, answered with its status and text. */
function post(url: string, agent: Agent, headers: Record<string, string>, body: Buffer): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: 'POST', agent, headers: { ...headers, 'content-length': String(body.length) } });
    req.on('error', reject);
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('error', reject);
      res.on('end', () => resolve([res.statusCode ?? 0, Buffer.concat(chunks).toString()]));
    });
    req.end(body);
  });
}

async function httpRun(b: Batches): Promise<Rate> {
  return withServer(b, async (server, token) => {
    const url = `${server.url.replace('localhost', '127.0.0.1')}/admin/v1/ingest`;
    const agent = new Agent({ keepAlive: true, maxSockets: IN_FLIGHT });
    let next = 0;
    const sender = async () => {
      while (next < b.timed.length) {
        const t = b.timed[next++]!;
        for (;;) {
          const headers = {
            authorization: `Bearer ${token}`,
            'content-type': 'application/x-ndjson',
            'idempotency-key': t.id,
            'x-batch-at': t.at,
          };
          const [status, text] = await post(url, agent, headers, t.body);
          if (status === 503) continue;
          if (status !== 200) throw new Error(`batch ${t.id}: ${status} ${text}`);
          break;
        }
      }
    };
    try {
      const rate = await timed(b.updates, async () => {
        await Promise.all(Array.from({ length: IN_FLIGHT }, sender));
      });
      if ((await server.services.store.batchHead(b.timed.at(-1)!.id)) === undefined) {
        throw new Error('the last batch was not committed');
      }
      return rate;
    } finally {
      agent.destroy();
    }
  });
}

export interface IngestHttpResult {
  updates: number;
  ledger: Rate[];
  http: Rate[];
  ledgerMedian: number;
  httpMedian: number;
  ratio: number;
  /** The same by CPU time. */
  ledgerCpuMedian: number;
  httpCpuMedian: number;
  cpuRatio: number;
  loadBefore: number;
}

export async function runIngestHttp(): Promise<IngestHttpResult> {
  const b = batches();
  const ledger: Rate[] = [];
  const http: Rate[] = [];
  const loadBefore = loadavg()[0]!;
  for (let r = 0; r < RUNS; r++) {
    ledger.push(await ledgerRun(b));
    log(`  ledger run ${r + 1}: ${int(ledger.at(-1)!.wall)}/s, ${int(ledger.at(-1)!.cpu)}/CPU s`);
    http.push(await httpRun(b));
    log(`  http run ${r + 1}: ${int(http.at(-1)!.wall)}/s, ${int(http.at(-1)!.cpu)}/CPU s`);
  }
  const ledgerMedian = median(ledger.map((x) => x.wall));
  const httpMedian = median(http.map((x) => x.wall));
  const ledgerCpuMedian = median(ledger.map((x) => x.cpu));
  const httpCpuMedian = median(http.map((x) => x.cpu));
  return {
    updates: b.updates,
    ledger,
    http,
    ledgerMedian,
    httpMedian,
    ratio: httpMedian / ledgerMedian,
    ledgerCpuMedian,
    httpCpuMedian,
    cpuRatio: httpCpuMedian / ledgerCpuMedian,
    loadBefore,
  };
}

export function ingestHttpMarkdown(r: IngestHttpResult): string {
  const yes = (ok: boolean) => (ok ? 'met' : '**missed**');
  return [
    `### Ingest over HTTP (${int(r.updates)} price changes, NDJSON batches of ${BATCH_SIZE}, median of ${RUNS} runs)`,
    '',
    '| | prices/s (median) | runs | prices per CPU second (median) |',
    '|---|---:|---|---:|',
    `| ledger.applyNamed, in the server | ${int(r.ledgerMedian)} | ${r.ledger.map((x) => int(x.wall)).join(', ')} | ${int(r.ledgerCpuMedian)} |`,
    `| POST /admin/v1/ingest, ${IN_FLIGHT} in flight | ${int(r.httpMedian)} | ${r.http.map((x) => int(x.wall)).join(', ')} | ${int(r.httpCpuMedian)} |`,
    '',
    `- load average when it began: ${r.loadBefore.toFixed(1)} on ${cpus().length} cores`,
    `- by CPU time, HTTP / ledger: ${pct(r.cpuRatio)} (the client's share of the process included)`,
    `- HTTP rate: ${int(r.httpMedian)}/s, target >= ${int(TARGET_PER_S)}/s: ${yes(r.httpMedian >= TARGET_PER_S)}`,
    `- HTTP / ledger: ${pct(r.ratio)}, target >= ${pct(TARGET_RATIO)}: ${yes(r.ratio >= TARGET_RATIO)}`,
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const r = await runIngestHttp();
  process.stdout.write(`${ingestHttpMarkdown(r)}\n`);
}
