import { WebSocket } from 'ws';

/** A WebSocket client for tests: every message kept in order, awaited by predicate. */
export interface TestSocket {
  ws: WebSocket;
  messages: any[];
  /** Resolves with the first message (from the start, or after the last one taken) that matches. */
  next(match?: (m: any) => boolean, timeoutMs?: number): Promise<any>;
  /** Messages that arrive within `ms`, heartbeats left out. */
  collect(ms: number): Promise<any[]>;
  send(msg: unknown): void;
  closed: Promise<{ code: number; reason: string }>;
  close(): Promise<void>;
}

const isHeartbeat = (m: any) => m?.type === 'heartbeat' || m?.meta?.type === 'heartbeat';

/** Opens a socket and resolves once it is open. Heartbeats are skipped by `next` unless asked for. */
export async function connect(url: string, headers: Record<string, string> = {}): Promise<TestSocket> {
  const ws = new WebSocket(url, { headers });
  const messages: any[] = [];
  let taken = 0;
  let wake: () => void = () => {};
  ws.on('message', (data) => {
    messages.push(JSON.parse(String(data)));
    wake();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => {
      resolve({ code, reason: String(reason) });
      wake();
    }),
  );
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
    ws.once('unexpected-response', (_req, res) => reject(new Error(`upgrade refused: ${res.statusCode}`)));
  });
  const socket: TestSocket = {
    ws,
    messages,
    async next(match = (m) => !isHeartbeat(m), timeoutMs = 3000) {
      const deadline = Date.now() + timeoutMs;
      for (;;) {
        while (taken < messages.length) {
          const m = messages[taken++];
          if (match(m)) return m;
        }
        if (ws.readyState === WebSocket.CLOSED) throw new Error('socket closed while waiting');
        const left = deadline - Date.now();
        if (left <= 0)
          throw new Error(`no matching message within ${timeoutMs} ms; got ${JSON.stringify(messages.slice(-5))}`);
        await new Promise<void>((resolve) => {
          const t = setTimeout(resolve, left);
          wake = () => {
            clearTimeout(t);
            resolve();
          };
        });
      }
    },
    async collect(ms) {
      const start = messages.length;
      await new Promise((r) => setTimeout(r, ms));
      taken = messages.length;
      return messages.slice(start).filter((m) => !isHeartbeat(m));
    },
    send(msg) {
      ws.send(typeof msg === 'string' ? msg : JSON.stringify(msg));
    },
    closed,
    async close() {
      if (ws.readyState === WebSocket.CLOSED) return;
      ws.close();
      await closed;
    },
  };
  return socket;
}

/** The status and JSON body of a refused upgrade. */
export function refusal(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any; headers: Record<string, unknown> }> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers });
    ws.once('open', () => {
      ws.close();
      reject(new Error('the upgrade was accepted'));
    });
    ws.once('error', () => {});
    ws.once('unexpected-response', (_req, res) => {
      let text = '';
      res.on('data', (c) => (text += String(c)));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: JSON.parse(text), headers: res.headers }));
    });
  });
}
