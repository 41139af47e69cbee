/**
 * The baseline of bench/events.ts: a bare node:http server that answers every request with the same
 * bytes and content-type, read once from a file, and with the other headers of HEADERS_FILE (a JSON
 * object of name -> value) when given, so that its answers are the same bytes as the server's under
 * test. Listens on 127.0.0.1 only.
 *
 *   node --import tsx bench/bare-server.ts BODY_FILE PORT [CONTENT_TYPE] [HEADERS_FILE]
 *
 * Prints `listening <port>` on stdout once it accepts connections; exits on SIGTERM or SIGINT, or
 * by itself after MAX_LIFETIME_MS so that a forgotten one never lingers.
 */
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

const MAX_LIFETIME_MS = 30 * 60_000;

const [file, portArg, contentType = 'application/json; charset=utf-8', headersFile] = process.argv.slice(2);
if (!file || !portArg) {
  process.stderr.write('usage: bare-server.ts BODY_FILE PORT [CONTENT_TYPE]\n');
  process.exit(2);
}
const body = readFileSync(file);
const extra = headersFile ? (JSON.parse(readFileSync(headersFile, 'utf8')) as Record<string, string>) : {};
const headers = { ...extra, 'content-type': contentType, 'content-length': String(body.length) };

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
