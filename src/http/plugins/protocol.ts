import { maxHeaderSize, STATUS_CODES } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { finished } from 'node:stream';
import type { ConnectionError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { ApiError } from '../../projection/errors.ts';

/**
 * Requests refused before any route sees them: malformed HTTP, a missing Host, an unknown Expect,
 * CONNECT, and bodies on GET. Each gets the spec's error shape (JSON with `message`), and where the
 * server closes the connection the answer says `Connection: close`.
 */

/** How long a connection closed with an answer keeps reading what the client still sends. */
const LINGER_MS = 2000;

/** Methods whose bodies fastify never reads: a body sent with one is read here and dropped. */
const BODYLESS = new Set(['GET', 'HEAD', 'TRACE']);

function rawAnswer(status: number, message: string): string {
  const body = JSON.stringify({ message });
  return (
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
    'Content-Type: application/json; charset=utf-8\r\n' +
    `Content-Length: ${Buffer.byteLength(body)}\r\n` +
    'Connection: close\r\n\r\n' +
    body
  );
}

/**
 * Writes a last answer straight to the socket and closes it. Closing at once while the client is
 * still sending makes the kernel send a reset, and a reset can discard the answer before the client
 * reads it; so the socket keeps reading (and dropping) input until the client closes or LINGER_MS.
 */
function answerAndClose(socket: Duplex, status: number, message: string): void {
  socket.end(rawAnswer(status, message));
  const timer = setTimeout(() => socket.destroy(), LINGER_MS);
  timer.unref();
  socket.once('close', () => clearTimeout(timer));
  socket.once('end', () => socket.destroy());
  socket.resume();
}

const CLIENT_ERRORS: Record<string, [number, string]> = {
  HPE_HEADER_OVERFLOW: [431, `the request line and headers exceed ${maxHeaderSize} bytes`],
  HPE_CHUNK_EXTENSIONS_OVERFLOW: [413, 'the chunk extensions of the request body are too large'],
  ERR_HTTP_REQUEST_TIMEOUT: [408, 'the request did not arrive in time'],
};

/**
 * Node's parser rejected the request (fastify's `clientErrorHandler`). Only the error code is
 * logged: the raw bytes fastify would log carry every header, the key's among them.
 */
export function clientErrorHandler(this: FastifyInstance, err: ConnectionError, socket: Socket): void {
  if (err.code === 'ECONNRESET' || !socket.writable) return;
  // An answer already under way on this connection (pipelining) cannot be followed by another.
  const inFlight = (socket as Socket & { _httpMessage?: { headersSent: boolean } })._httpMessage;
  if (inFlight?.headersSent) {
    socket.destroy();
    return;
  }
  const [status, message] = CLIENT_ERRORS[err.code] ?? [400, 'malformed HTTP request'];
  this.log.debug({ code: err.code, status }, 'malformed request refused');
  answerAndClose(socket, status, message);
}

/** Refuses a request from an onRequest hook: answered on the socket, which then closes. */
function refuse(request: FastifyRequest, reply: FastifyReply, status: number, message: string): void {
  reply.hijack();
  request.log.info({ res: { statusCode: status } }, message);
  answerAndClose(request.raw.socket, status, message);
  request.raw.resume();
}

/**
 * Checks every request before routing: a Host header on HTTP/1.1, no Expect but 100-continue, and
 * on GET, HEAD and TRACE a body no larger than `bodyLimit`, read to its end before the route
 * answers. Answering first would close (or reuse) a connection with the body still arriving, and
 * the client would get a reset instead of the answer.
 */
export function installProtocolChecks(app: FastifyInstance, bodyLimit: number): void {
  // Node answers these itself with an empty body; routing them here gives them a JSON answer.
  app.server.on('checkExpectation', (req, res) => app.routing(req, res));
  app.server.on('connect', (_req, socket: Duplex) => answerAndClose(socket, 405, 'CONNECT is not supported'));

  app.addHook('onRequest', (request, reply, done) => {
    const raw = request.raw;
    const headers = raw.headers;
    if (raw.httpVersion === '1.1' && headers.host === undefined) {
      return refuse(request, reply, 400, 'an HTTP/1.1 request needs a Host header');
    }
    if (headers.expect !== undefined && headers.expect.toLowerCase() !== '100-continue') {
      return refuse(request, reply, 417, 'the only expectation supported is Expect: 100-continue');
    }
    const length = headers['content-length'];
    const hasBody = headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
    if (!hasBody || !BODYLESS.has(raw.method ?? '')) return done();
    const tooLarge = `request bodies are not read beyond ${bodyLimit} bytes`;
    if (Number(length) > bodyLimit) return refuse(request, reply, 413, tooLarge);
    let received = 0;
    let refused = false;
    const count = (chunk: Buffer) => {
      received += chunk.length;
      if (received > bodyLimit && !refused) {
        refused = true;
        refuse(request, reply, 413, tooLarge);
      }
    };
    raw.on('data', count);
    finished(raw, (err) => {
      raw.off('data', count);
      if (refused) return;
      if (err) return done(new ApiError(400, { message: 'the request body ended early' }));
      done();
    });
  });
}
