import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { StartError } from './preflight.ts';

export interface StartingListener {
  /** The port it listens on (the system's choice for port 0): the server takes it over. */
  port: number;
  /** What the start is doing now, as `/readyz` and every refused request say it. */
  step: string;
  /** Stops listening and closes its connections, so that the server can listen on the port. */
  close(): Promise<void>;
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers });
  res.end(JSON.stringify(body));
};

/**
 * The API port while the server loads its store and fills its history: it opens within the first
 * second, so probes and people see the server alive and what it is doing. `/healthz` is 200,
 * `/readyz` 503 with the step; every other request is 503 with Retry-After, and a WebSocket
 * upgrade too, so no client reads a board that is not loaded yet or rows not yet committed.
 */
export function listenStarting(opts: {
  host: string;
  port: number;
  tls?: { cert: Buffer; key: Buffer };
}): Promise<StartingListener> {
  const state = { step: 'starting' };
  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '/').split('?')[0];
    if (path === '/healthz') return json(res, 200, { status: 'ok' });
    if (path === '/readyz') return json(res, 503, { status: 'not ready', step: state.step });
    json(res, 503, { message: `the server is starting: ${state.step}` }, { 'retry-after': '5', connection: 'close' });
  };
  const server: Server = opts.tls
    ? (createHttpsServer({ ...opts.tls }, handle) as unknown as Server)
    : createServer(handle);
  server.on('upgrade', (_req: IncomingMessage, socket: Duplex) => {
    socket.end('HTTP/1.1 503 Service Unavailable\r\nRetry-After: 5\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
  });
  const sockets = new Set<Socket>();
  server.on('connection', (socket: Socket) => {
    sockets.add(socket);
    socket.once('close', () => sockets.delete(socket));
  });
  return new Promise((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new StartError(
          `${opts.host}:${opts.port} cannot be listened on (${err.code ?? err.message}): choose another with --port (env PORT)`,
        ),
      ),
    );
    server.listen({ host: opts.host, port: opts.port }, () => {
      const listener: StartingListener = {
        port: (server.address() as AddressInfo).port,
        get step() {
          return state.step;
        },
        set step(step: string) {
          state.step = step;
        },
        close: () =>
          new Promise<void>((done) => {
            server.close(() => done());
            for (const socket of sockets) socket.destroy();
          }),
      };
      resolve(listener);
    });
  });
}
