/**
 * The client of bench/ingest-http.ts, a process of its own (bundled, pinned by the bench to CPU 1,
 * which the server may share): it reads the NDJSON bodies of DIR (bench/ingest-bodies.ts) into
 * memory as bytes, writes `ready`, and on the line `go` on standard input POSTs them to
 * URL/admin/v1/ingest with their Idempotency-Key and X-Batch-At, IN_FLIGHT at a time over
 * keep-alive connections (node:http), sending a batch again after a 503. Any other answer than 200
 * with the batch applied stops it. Then it writes one JSON line: prices, wall seconds, its own CPU
 * seconds, 503s, the last head id.
 *
 *   node BUNDLE URL TOKEN DIR IN_FLIGHT
 */
import { Agent, request } from 'node:http';
import { createInterface } from 'node:readline';
import { readBodies } from './ingest-bodies.ts';

const [url, token, dir, inFlightRaw] = process.argv.slice(2);
const inFlight = Number(inFlightRaw);
if (!url || !token || !dir || !(inFlight >= 1)) {
  process.stderr.write('usage: ingest-client BUNDLE URL TOKEN DIR IN_FLIGHT\n');
  process.exit(2);
}

/** One POST of `body`, answered with its status and text. */
function post(agent: Agent, headers: Record<string, string>, body: Buffer): Promise<[number, string]> {
  return new Promise((resolve, reject) => {
    const req = request(`${url}/admin/v1/ingest`, {
      method: 'POST',
      agent,
      headers: { ...headers, 'content-length': String(body.length) },
    });
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

const bodies = readBodies(dir);
const prices = bodies.reduce((n, b) => n + b.body.toString().split('\n').length, 0);
const agent = new Agent({ keepAlive: true, maxSockets: inFlight });
process.stdout.write('ready\n');
const lines = createInterface({ input: process.stdin });
for await (const line of lines) if (line === 'go') break;

let next = 0;
let busy = 0;
let headId = 0;
const sender = async () => {
  while (next < bodies.length) {
    const b = bodies[next++]!;
    const headers = {
      authorization: `Bearer ${token}`,
      'content-type': 'application/x-ndjson',
      'idempotency-key': b.id,
      'x-batch-at': b.at,
    };
    for (;;) {
      const [status, text] = await post(agent, headers, b.body);
      if (status === 503) {
        busy++;
        continue;
      }
      const answer = status === 200 ? (JSON.parse(text) as { applied: boolean; head_id: number }) : undefined;
      if (!answer?.applied) throw new Error(`batch ${b.id}: ${status} ${text}`);
      headId = Math.max(headId, answer.head_id);
      break;
    }
  }
};
const cpu = process.cpuUsage();
const start = performance.now();
await Promise.all(Array.from({ length: inFlight }, sender));
const seconds = (performance.now() - start) / 1000;
const used = process.cpuUsage(cpu);
agent.destroy();
lines.close();
process.stdout.write(
  `${JSON.stringify({ prices, seconds, cpuSeconds: (used.user + used.system) / 1e6, busy, headId })}\n`,
);
