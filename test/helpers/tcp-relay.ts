import { createServer, type Server, type Socket, connect } from 'node:net';

/**
 * A TCP relay on a loopback port in front of a server: what a browser reaches the server through
 * when a test must cut its connections (a dropped network) and let them through again.
 */
export interface TcpRelay {
  url: string;
  /** Ends every relayed connection and refuses new ones until `restore`. */
  drop(): void;
  restore(): void;
  close(): Promise<void>;
}

export async function startTcpRelay(target: string): Promise<TcpRelay> {
  const to = new URL(target);
  const open = new Set<Socket>();
  let cut = false;
  const server: Server = createServer((client) => {
    if (cut) return void client.destroy();
    const upstream = connect(Number(to.port), to.hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as { port: number }).port;
  return {
    url: `http://127.0.0.1:${port}`,
    drop() {
      cut = true;
      for (const s of open) s.destroy();
    },
    restore() {
      cut = false;
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
