/**
 * The baseline of bench/events.ts: a bare node:http server that answers every request with the same
 * bytes and content-type, read once from a file, and with the other headers of HEADERS_FILE (a JSON
 * object of name -> value) when given, so that its answers are the same bytes as the server's under
 * test. Listens on 127.0.0.1 only.
 *
 *   node --import tsx bench/bare-server.ts BODY_FILE PORT [CONTENT_TYPE] [HEADERS_FILE] [HEAP_MB]
 *
 * With HEAP_MB (run it with --expose-gc), it first fills its heap with long-lived objects until V8 reports that many MB used,
 * and replaces a few of them every 100 ms, as a live board holds prices and changes some: the
 * same answers from a process that holds as much as the server under test, to tell what holding
 * it costs each request (young collections scan the old generation's pages) from what the server's
 * own work per request costs.
 *
 * Prints `listening <port>` on stdout once it accepts connections; exits on SIGTERM or SIGINT, or
 * by itself after MAX_LIFETIME_MS so that a forgotten one never lingers.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { getHeapStatistics } from 'node:v8';

const MAX_LIFETIME_MS = 30 * 60_000;
/** Held objects replaced every 100 ms: about the live simulator's rate of changes. */
const REPLACED_PER_TICK = 10;

const [file, portArg, contentType = 'application/json; charset=utf-8', headersFile, heapMbArg] = process.argv.slice(2);
if (!file || !portArg) {
  process.stderr.write('usage: bare-server.ts BODY_FILE PORT [CONTENT_TYPE] [HEADERS_FILE] [HEAP_MB]\n');
  process.exit(2);
}
const body = readFileSync(file);
const extra = headersFile ? (JSON.parse(readFileSync(headersFile, 'utf8')) as Record<string, string>) : {};
const headers = { ...extra, 'content-type': contentType, 'content-length': String(body.length) };

interface Held {
  id: number;
  book: string;
  price: number;
  line: number;
  updated: string;
  open: { price: number; at: number };
}
const held = (id: number): Held => ({
  id,
  book: `book-${id % 14}`,
  price: 1.5 + (id % 97) / 10,
  line: (id % 13) / 2,
  updated: `t${id}`,
  open: { price: 2 + (id % 89) / 10, at: id },
});
const heapBytes = Number(heapMbArg ?? 0) * 1024 * 1024;
const board = new Map<number, Held>();
// With --expose-gc, the heap's used size is read after a collection, so that the garbage of the
// fill itself (the map's old tables) does not count as held.
const gc = (globalThis as { gc?: () => void }).gc;
for (let id = 0; getHeapStatistics().used_heap_size < heapBytes; id++) {
  board.set(id, held(id));
  if (id % 50_000 === 0) gc?.();
}
if (board.size > 0) {
  let next = 0;
  setInterval(() => {
    for (let i = 0; i < REPLACED_PER_TICK; i++, next = (next + 7919) % board.size) board.set(next, held(next));
  }, 100).unref();
}

const server = createServer((_req, res) => {
  res.writeHead(200, headers);
  res.end(body);
});
server.keepAliveTimeout = 72_000;

server.listen(Number(portArg), '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`listening ${typeof addr === 'object' && addr ? addr.port : portArg}\n`);
});

const stop = () => {
  server.close();
  server.closeAllConnections();
  process.exit(0);
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
setTimeout(stop, MAX_LIFETIME_MS).unref();
