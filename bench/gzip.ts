/**
 * Compressed and conditional polls of GET /api/v2/sports/4/events/{today} on the real server (live
 * simulator on), against bare node:http sending the same bytes, plain and precompressed, in one run:
 *
 *   node --import tsx bench/gzip.ts [--rounds 3] [--duration 4] [--rate 1000]
 *
 * Every case is paced at the same request rate (autocannon's overallRate), so that CPU per request
 * compares like with like: unpaced, the gzip runs went at a quarter of the plain runs' rate (on the
 * bare server as well: the loopback and the client, not the servers), and the simulator's idle ticks
 * weighed four times as much per request. The oddsbase CPU per request is also given net of what
 * the process uses with no requests (the simulator), measured before the rounds.
 *
 * Each round runs, in turn: oddsbase plain (no Accept-Encoding), bare plain, oddsbase gzip
 * (Accept-Encoding: gzip), bare gzip (the captured gzip bytes with Content-Encoding: gzip), and
 * oddsbase with If-None-Match (the ETag read just before the run, with Accept-Encoding: gzip): the
 * 304 replaces the gzip 200. The board changes under the load, so some of those answers are 200s
 * (the share is printed). Servers are pinned to CPU 0, this process (autocannon) to CPU 1, as in
 * bench/events.ts, whose runner this reuses.
 */
import { writeFileSync } from 'node:fs';
import { get as httpGet } from 'node:http';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { bundle } from '../bin/bundle.js';
import { cannon, line, medianStats, type RunStats } from './events.ts';
import {
  canPin,
  type Child,
  cleanupOnSignal,
  cpuSeconds,
  currentAffinity,
  freePort,
  int,
  isMain,
  log,
  makeTmpDir,
  pct,
  pinSelf,
  removeDir,
  type ServerChild,
  spawnNode,
  sleep,
  startOddsbase,
  todayUtc,
  waitForHttp,
} from './lib.ts';

/** Issue 43: a gzip poll at most 110% of a plain poll's server CPU, at most a fifth of its bytes. */
const CPU_TARGET = 1.1;
const BYTES_TARGET = 0.2;
const SERVER_CPU = '0';
const CLIENT_CPU = '1';

interface Raw {
  status: number;
  body: Buffer;
  headers: Record<string, string>;
}

function raw(url: string, headers: Record<string, string>): Promise<Raw> {
  return new Promise((resolve, reject) => {
    httpGet(url, { headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (c: Buffer) => parts.push(c));
      res.on('end', () => {
        const out: Record<string, string> = {};
        for (const [k, v] of Object.entries(res.headers)) if (typeof v === 'string') out[k] = v;
        resolve({ status: res.statusCode!, body: Buffer.concat(parts), headers: out });
      });
    }).on('error', reject);
  });
}

/** The answer's own headers for the bare server: not node's, not the body's length and type. */
function bareHeaders(headers: Record<string, string>): Record<string, string> {
  const skip = new Set(['date', 'connection', 'keep-alive', 'transfer-encoding', 'content-length', 'content-type']);
  return Object.fromEntries(Object.entries(headers).filter(([k]) => !skip.has(k)));
}

export interface GzipResult {
  path: string;
  rounds: number;
  durationS: number;
  plainBytes: number;
  gzipBytes: number;
  med: { plain: RunStats; barePlain: RunStats; gzip: RunStats; bareGzip: RunStats; notModified: RunStats };
  /** Share of the conditional requests answered 304 (the rest: 200, the board moved). */
  share304: number;
  /** Paced requests per second of every run. */
  rate: number;
  /** Share of one CPU the oddsbase process uses with no requests (the simulator's ticks). */
  idleCpu: number;
}

export async function runGzip(rounds = 3, durationS = 4, rate = 1000): Promise<GzipResult> {
  const path = `/api/v2/sports/4/events/${todayUtc()}`;
  const scratch = makeTmpDir('gzip');
  let server: ServerChild | undefined;
  const bares: Child[] = [];
  let restoreAffinity: string | undefined;
  const cleanup = async () => {
    for (const b of bares) await b.stop();
    await server?.close();
    removeDir(scratch);
    if (restoreAffinity) pinSelf(restoreAffinity);
  };
  const undoSignals = cleanupOnSignal(cleanup);
  try {
    log('gzip: starting oddsbase with the live simulator (it fills its history first)');
    server = await startOddsbase({
      port: await freePort(),
      cpu: SERVER_CPU,
      tier: 'enterprise',
      burstPerSecond: 1_000_000_000,
    });
    restoreAffinity = canPin() ? currentAffinity() : undefined;
    if (restoreAffinity) pinSelf(CLIENT_CPU);
    const url = server.url + path;
    const key = { 'X-Service-Key': server.key };
    // Asked three times: the snapshot keeps (and compresses) an answer from its second request.
    for (let i = 0; i < 2; i++) await raw(url, { ...key, 'Accept-Encoding': 'gzip' });
    const plain = await raw(url, key);
    const zipped = await raw(url, { ...key, 'Accept-Encoding': 'gzip' });
    if (plain.status !== 200 || zipped.headers['content-encoding'] !== 'gzip') {
      throw new Error(`GET ${path}: ${plain.status}, content-encoding ${zipped.headers['content-encoding']}`);
    }
    if ((JSON.parse(gunzipSync(zipped.body).toString()) as { events: unknown[] }).events.length === 0) {
      throw new Error(`no events in ${path}: the simulator did not fill the board`);
    }
    log(`gzip: ${path} -> ${int(plain.body.length)} bytes plain, ${int(zipped.body.length)} gzip`);

    const bareUrls: string[] = [];
    for (const [name, answer] of [
      ['plain', plain],
      ['gzip', zipped],
    ] as const) {
      const bodyFile = join(scratch, `${name}.body`);
      const headersFile = join(scratch, `${name}.headers.json`);
      writeFileSync(bodyFile, answer.body);
      writeFileSync(headersFile, JSON.stringify(bareHeaders(answer.headers)));
      const port = await freePort();
      const child = spawnNode(
        [await bundle('bench/bare-server.ts'), bodyFile, String(port), answer.headers['content-type']!, headersFile],
        { cpu: SERVER_CPU },
      );
      bares.push(child);
      bareUrls.push(`http://127.0.0.1:${port}${path}`);
      await waitForHttp(bareUrls.at(-1)!, child, 60_000);
    }
    const [barePlainUrl, bareGzipUrl] = bareUrls as [string, string];
    const [barePlain, bareGzip] = bares as [Child, Child];
    const pid = server.child.pid;
    const gzipHeaders = { ...key, 'Accept-Encoding': 'gzip' };
    log('gzip: warm-up (2 s each)');
    await cannon(url, key, 2, pid);
    await cannon(url, gzipHeaders, 2, pid);
    await cannon(barePlainUrl, {}, 2, barePlain.pid);
    await cannon(bareGzipUrl, gzipHeaders, 2, bareGzip.pid);

    const idle0 = cpuSeconds(pid) ?? 0;
    await sleep(5000);
    const idleCpu = ((cpuSeconds(pid) ?? 0) - idle0) / 5;
    const runs = {
      plain: [] as RunStats[],
      barePlain: [] as RunStats[],
      gzip: [] as RunStats[],
      bareGzip: [] as RunStats[],
      notModified: [] as RunStats[],
    };
    let conditional = 0;
    let notModified = 0;
    for (let i = 0; i < rounds; i++) {
      runs.plain.push(await cannon(url, key, durationS, pid, rate));
      runs.barePlain.push(await cannon(barePlainUrl, {}, durationS, barePlain.pid, rate));
      runs.gzip.push(await cannon(url, gzipHeaders, durationS, pid, rate));
      runs.bareGzip.push(await cannon(bareGzipUrl, gzipHeaders, durationS, bareGzip.pid, rate));
      const etag = (await raw(url, gzipHeaders)).headers.etag!;
      const c = await cannon(url, { ...gzipHeaders, 'If-None-Match': etag }, durationS, pid, rate);
      runs.notModified.push(c);
      // autocannon counts a 304 as non-2xx.
      conditional += c.requests;
      notModified += c.errors;
      log(`  round ${i + 1}: plain ${line(runs.plain.at(-1)!)}`);
      log(`  round ${i + 1}: bare plain ${line(runs.barePlain.at(-1)!)}`);
      log(`  round ${i + 1}: gzip ${line(runs.gzip.at(-1)!)}`);
      log(`  round ${i + 1}: bare gzip ${line(runs.bareGzip.at(-1)!)}`);
      log(`  round ${i + 1}: If-None-Match ${line(c)} (${int(c.errors)} of ${int(c.requests)} were 304)`);
    }
    return {
      path,
      rounds,
      durationS,
      plainBytes: plain.body.length,
      gzipBytes: zipped.body.length,
      med: {
        plain: medianStats(runs.plain),
        barePlain: medianStats(runs.barePlain),
        gzip: medianStats(runs.gzip),
        bareGzip: medianStats(runs.bareGzip),
        notModified: medianStats(runs.notModified),
      },
      share304: conditional > 0 ? notModified / conditional : 0,
      rate,
      idleCpu,
    };
  } finally {
    undoSignals();
    await cleanup();
  }
}

export function gzipMarkdown(r: GzipResult): string {
  const { plain, barePlain, gzip, bareGzip, notModified } = r.med;
  const us = (s: RunStats) => `${s.cpuUsPerRequest.toFixed(0)} µs`;
  /** oddsbase's CPU per request without the simulator's idle share. */
  const net = (s: RunStats) => Math.max(0, s.cpuUsPerRequest - (r.idleCpu * 1e6) / Math.max(1, s.rps));
  const usNet = (s: RunStats) => `${us(s)} (${net(s).toFixed(0)} µs net of idle)`;
  const cpuRatio = net(gzip) / net(plain);
  const byteRatio = gzip.bytesPerResponse / plain.bytesPerResponse;
  return [
    `GET ${r.path}, ${r.rounds} rounds of ${r.durationS} s per case, each paced at ${int(r.rate)} requests a second, medians (server CPU per request; bytes per response as autocannon counts them, headers included; the oddsbase process uses ${pct(r.idleCpu)} of a CPU with no requests, the simulator's ticks):`,
    '',
    '| case | req/s | server CPU / request | bytes / response |',
    '|---|---|---|---|',
    `| oddsbase plain | ${int(plain.rps)} | ${usNet(plain)} | ${int(plain.bytesPerResponse)} |`,
    `| bare node:http plain | ${int(barePlain.rps)} | ${us(barePlain)} | ${int(barePlain.bytesPerResponse)} |`,
    `| oddsbase gzip | ${int(gzip.rps)} | ${usNet(gzip)} | ${int(gzip.bytesPerResponse)} |`,
    `| bare node:http gzip (same bytes) | ${int(bareGzip.rps)} | ${us(bareGzip)} | ${int(bareGzip.bytesPerResponse)} |`,
    `| oddsbase If-None-Match (${pct(r.share304)} 304) | ${int(notModified.rps)} | ${usNet(notModified)} | ${int(notModified.bytesPerResponse)} |`,
    '',
    `- body: ${int(r.plainBytes)} bytes plain, ${int(r.gzipBytes)} gzip`,
    `- gzip / plain server CPU per request, net of idle: ${pct(cpuRatio)} (target <= ${pct(CPU_TARGET)}: ${cpuRatio <= CPU_TARGET ? 'met' : '**missed**'}); gross ${pct(gzip.cpuUsPerRequest / plain.cpuUsPerRequest)}`,
    `- gzip / plain bytes per response: ${pct(byteRatio)} (target <= ${pct(BYTES_TARGET)}: ${byteRatio <= BYTES_TARGET ? 'met' : '**missed**'})`,
    `- If-None-Match / gzip 200 server CPU per request, net of idle: ${pct(net(notModified) / net(gzip))} (a mix: ${pct(r.share304)} of them were 304)`,
    // The mix is share x 304 + (1 - share) x gzip 200: the 304 alone follows.
    `- a 304 alone, derived from that mix: ${((net(notModified) - (1 - r.share304) * net(gzip)) / Math.max(r.share304, 1e-9)).toFixed(0)} µs, ` +
      `${pct((net(notModified) - (1 - r.share304) * net(gzip)) / Math.max(r.share304, 1e-9) / net(gzip))} of the gzip 200 it replaces`,
    `- oddsbase / bare CPU per request: plain ${pct(plain.cpuUsPerRequest / barePlain.cpuUsPerRequest)}, gzip ${pct(gzip.cpuUsPerRequest / bareGzip.cpuUsPerRequest)}`,
    '',
  ].join('\n');
}

if (isMain(import.meta.url)) {
  const args = process.argv.slice(2);
  const arg = (name: string, fallback: number) => {
    const i = args.indexOf(name);
    return i >= 0 ? Number(args[i + 1]) : fallback;
  };
  const r = await runGzip(arg('--rounds', 3), arg('--duration', 4), arg('--rate', 1000));
  process.stdout.write(`${gzipMarkdown(r)}\n${JSON.stringify(r)}\n`);
}
