import { createServer, request, type Server } from 'node:http';

/** An answer the proxy gives itself instead of passing the request on. */
export interface ProxyAnswer {
  status: number;
  headers?: Record<string, string>;
  body?: unknown;
}

export interface ProxiedRequest {
  /** Path and query, as asked. */
  path: string;
  /** performance.now() when the request reached the proxy. */
  at: number;
  /** The status the proxy answered itself, or undefined when the request was passed on. */
  answered: number | undefined;
  /** The status the server answered a request passed on (once its answer arrived). */
  status?: number;
}

/**
 * An HTTP proxy on a loopback port in front of a server: every request is recorded, and `rule` may
 * answer one itself (a 429 with Retry-After) instead of passing it on, or `hold` it unanswered.
 */
export interface HttpProxy {
  url: string;
  requests: ProxiedRequest[];
  rule: ((path: string) => ProxyAnswer | 'hold' | undefined) | undefined;
  close(): Promise<void>;
}

export async function startHttpProxy(target: string): Promise<HttpProxy> {
  const to = new URL(target);
  const proxy: HttpProxy = { url: '', requests: [], rule: undefined, close: async () => undefined };
  const server: Server = createServer((req, res) => {
    const path = req.url ?? '/';
    const own = proxy.rule?.(path);
    const asked: ProxiedRequest = { path, at: performance.now(), answered: own === 'hold' ? undefined : own?.status };
    proxy.requests.push(asked);
    if (own === 'hold') return;
    if (own) {
      res.writeHead(own.status, { 'content-type': 'application/json', ...own.headers });
      res.end(own.body === undefined ? '' : JSON.stringify(own.body));
      return;
    }
    const out = request(
      { host: to.hostname, port: to.port, method: req.method, path, headers: { ...req.headers, host: to.host } },
      (answer) => {
        asked.status = answer.statusCode;
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    out.on('error', () => {
      if (!res.headersSent) res.writeHead(502);
      res.end();
    });
    req.pipe(out);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  proxy.url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
  proxy.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    });
  return proxy;
}
