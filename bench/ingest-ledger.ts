/**
 * The ledger side of bench/ingest-http.ts: the server `oddsbase serve --feed ingest` starts
 * (startServer with the configuration `serve` resolves from the same options), bundled as
 * bin/oddsbase.js bundles the command and run with `npm start`'s node flags, so it is the shipped
 * process but for the few lines below. It listens, so the bench sets its events up through the
 * ingest route exactly as for an HTTP run. On the line `go DIR` on standard input it reads the timed
 * NDJSON bodies of DIR (bench/ingest-bodies.ts), parses them as the route does (a `JSON.parse` a
 * line), all before the clock, then hands them to the server's ledger one after another as named
 * batches (`applyNamed`, what the ingest feed calls once a batch is checked) and writes one JSON
 * line: prices, wall seconds and the CPU seconds of the process (every thread). SIGTERM closes it
 * as `serve` closes.
 *
 *   node [npm start's flags] BUNDLE DATA_DIR PORT
 */
import { createInterface } from 'node:readline';
import { resolveServeConfig } from '../src/config.ts';
import type { Update } from '../src/ledger/updates.ts';
import { startServer } from '../src/server.ts';
import { readBodies } from './ingest-bodies.ts';

const [dataDir, port] = process.argv.slice(2);
if (!dataDir || !port) {
  process.stderr.write('usage: ingest-ledger BUNDLE DATA_DIR PORT\n');
  process.exit(2);
}
const server = await startServer(resolveServeConfig({ port, host: '127.0.0.1', dataDir, feed: 'ingest' }), {
  say: () => {},
});
process.once('SIGTERM', () => {
  void server.close().then(() => process.exit(0));
});

for await (const line of createInterface({ input: process.stdin })) {
  const [command, dir] = line.split(' ');
  if (command !== 'go' || !dir) continue;
  const batches = readBodies(dir).map((b) => ({
    at: b.at,
    batch_id: b.id,
    updates: b.body
      .toString()
      .split('\n')
      .filter((l) => l.trim() !== '')
      .map((l) => JSON.parse(l) as Update),
  }));
  const prices = batches.reduce((n, b) => n + b.updates.length, 0);
  const cpu = process.cpuUsage();
  const start = performance.now();
  for (const b of batches) {
    const done = await server.ledger.applyNamed(b);
    if (!done.applied) throw new Error(`batch ${b.batch_id} was applied before`);
  }
  const seconds = (performance.now() - start) / 1000;
  const used = process.cpuUsage(cpu);
  process.stdout.write(`${JSON.stringify({ prices, seconds, cpuSeconds: (used.user + used.system) / 1e6 })}\n`);
}
