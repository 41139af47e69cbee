/**
 * The server's memory under a hostile but legal clientele, as `npm start` runs it (its node flags,
 * the live simulator's full board): the kinds of input of test/integration/hostile.test.ts and
 * stream-hostile.test.ts, sent many times with distinct values over raw sockets, while RSS is
 * sampled every 250 ms.
 *
 *   node --import tsx bench/hostile.ts [--rounds 40] [--connections 16]
 *
 * REST: bad ids and dates, huge, repeated and percent-encoded parameters, injection strings,
 * path traversal, long and many headers, bodies on GET (up to 2 MB), keys in every place, cursors
 * out of range. Streams: deep nesting, oversize and binary messages, floods past the rate, keys in
 * the path, the subprotocol and the subscribe parameters. Then the server must still answer, and
 * the report gives RSS before, at its peak and after.
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import {
  canPin,
  cleanupOnSignal,
  freePort,
  isMain,
  log,
  machineInfo,
  mb,
  median,
  pinSelf,
  sleep,
  startOddsbase,
} from './lib.ts';

const junk = (n: number) =>
  Array.from({ length: n }, () => Math.random().toString(36).slice(2))
    .join('')
    .slice(0, n);

/** One raw request on its own connection; resolves with the status line, or 'closed'. */
function rawRequest(port: number, bytes: Buffer): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let head = '';
    socket.setTimeout(20_000, () => socket.destroy());
    socket.on('data', (b) => {
      head += b.toString('latin1');
      if (head.includes('\r\n\r\n')) socket.end();
    });
    socket.on('error', () => {});
    socket.on('close', () => resolve(head.split('\r\n')[0] || 'closed'));
    socket.write(bytes);
  });
}

function request(line: string, headers: Record<string, string> = {}, body: string | Buffer = ''): Buffer {
  const fields = Object.entries({ Host: '127.0.0.1', Connection: 'close', ...headers })
    .map(([k, v]) => `${k}: ${v}\r\n`)
    .join('');
  const len = body.length > 0 ? `Content-Length: ${Buffer.byteLength(body)}\r\n` : '';
  return Buffer.concat([
    Buffer.from(`${line}\r\n${fields}${len}\r\n`, 'latin1'),
    Buffer.isBuffer(body) ? body : Buffer.from(body),
  ]);
}

/** The REST corpus: every item a distinct request. */
function restCorpus(key: string): Buffer[] {
  const k = { 'X-Service-Key': key };
  const badKey = `ob_${'0123456789abcdef'.repeat(3).slice(0, 40)}`;
  const today = new Date().toISOString().slice(0, 10);
  return [
    request(`GET /api/v2/events/${junk(40)} HTTP/1.1`, k),
    request(`GET /api/v2/sports/${junk(6)}/events/${today} HTTP/1.1`, k),
    request(`GET /api/v2/sports/4/events/2026-13-${junk(2)} HTTP/1.1`, k),
    request(
      `GET /api/v2/sports/4/events/${today}?market_ids=${Array.from({ length: 2000 }, (_, i) => i).join(',')} HTTP/1.1`,
      k,
    ),
    request(
      `GET /api/v2/sports/4/events/${today}?${Array.from({ length: 200 }, (_, i) => `p${i}=${junk(20)}`).join('&')} HTTP/1.1`,
      k,
    ),
    request(
      `GET /api/v2/sports/4/events/${today}?affiliate_ids=${encodeURIComponent(junk(500))}&offset=%${junk(2)} HTTP/1.1`,
      k,
    ),
    request(`GET /api/v2/events/${encodeURIComponent(`' OR 1=1--${junk(8)}`)} HTTP/1.1`, k),
    request(`GET /api/v2/sports/4/events/${today}?event_status=%3Cscript%3E${junk(8)}%00 HTTP/1.1`, k),
    request(`GET /docs/../../etc/passwd${junk(4)} HTTP/1.1`, k),
    request(`GET /api/v2/sports HTTP/1.1`, { ...k, 'X-Long': junk(8000) }),
    request(
      `GET /api/v2/sports HTTP/1.1`,
      Object.fromEntries(Array.from({ length: 120 }, (_, i) => [`X-H${i}`, junk(30)])),
    ),
    request(
      `GET /api/v2/sports/4/events/${today} HTTP/1.1`,
      k,
      Buffer.alloc(512 * 1024 + Math.floor(Math.random() * 1536 * 1024), 120),
    ),
    request(`GET /api/v2/markets?key=${badKey} HTTP/1.1`),
    request(`GET /api/v2/events/${badKey}${junk(4)} HTTP/1.1`, k),
    request(`GET /api/v2/markets HTTP/1.1`, { 'X-Service-Key': `${badKey.slice(0, 20)}${junk(20)}` }),
    request(`GET /api/v2/markets/delta?last_id=${Math.floor(Math.random() * 1e15)} HTTP/1.1`, k),
    request(`GET /api/v2/delta?last_id=${junk(36)} HTTP/1.1`, k),
    request(`POST /api/v2/sports HTTP/1.1`, k, junk(2000)),
    request(`GET /api/v2/sports HTTP/1.1`, { ...k, Expect: `${junk(10)}-continue` }),
  ];
}

/** The stream corpus on one multiplexed connection (or a refused upgrade), resolved when it ends. */
function streamCase(wsBase: string, key: string, kind: number): Promise<void> {
  return new Promise((resolve) => {
    const badKey = `ob_${'fedcba9876543210'.repeat(3).slice(0, 40)}`;
    const url =
      kind === 0
        ? `${wsBase}/api/v2/ws/${badKey}`
        : kind === 1
          ? `${wsBase}/api/v2/ws/markets?sport_ids=${badKey}`
          : `${wsBase}/api/v2/ws`;
    const ws = new WebSocket(url, kind === 2 ? [badKey] : [], { headers: { 'X-Service-Key': key } });
    const done = () => {
      ws.terminate();
      resolve();
    };
    const timer = setTimeout(done, 5000);
    ws.on('error', () => {});
    ws.on('unexpected-response', () => {
      clearTimeout(timer);
      done();
    });
    ws.on('close', () => {
      clearTimeout(timer);
      resolve();
    });
    ws.on('open', () => {
      const deep = `${'['.repeat(5000)}${']'.repeat(5000)}`;
      const messages: (string | Buffer)[] = [
        deep,
        junk(100_000),
        Buffer.from(junk(100)),
        JSON.stringify({ action: 'subscribe', id: badKey, channel: 'markets', params: { event_ids: [badKey] } }),
        ...Array.from({ length: 300 }, () => JSON.stringify({ action: 'usage', id: junk(8) })),
      ];
      // One kind of abuse per connection: the first refused one closes it.
      const pick =
        kind === 3 ? [messages[0]!] : kind === 4 ? [messages[1]!] : kind === 5 ? [messages[2]!] : messages.slice(3);
      for (const m of pick) if (ws.readyState === ws.OPEN) ws.send(m);
    });
  });
}

function rssOf(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const m = /VmRSS:\s+(\d+) kB/.exec(status);
    return m ? Number(m[1]) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

export async function runHostile(opts: { rounds: number; connections: number }): Promise<string> {
  if (canPin()) pinSelf('1');
  const port = await freePort();
  log('hostile: starting the server as npm start runs it (a full history fill)');
  const server = await startOddsbase({ port, cpu: '0', tier: 'enterprise', burstPerSecond: 1_000_000 });
  const undo = cleanupOnSignal(() => server.close());
  const samples: number[] = [];
  const sampler = setInterval(() => {
    const rss = rssOf(server.child.pid);
    if (rss !== undefined) samples.push(rss);
  }, 250);
  try {
    await sleep(30_000);
    const before = median(samples.splice(0));
    const statuses = new Map<string, number>();
    const wsBase = server.url.replace('http', 'ws');
    log(`hostile: RSS before ${mb(before)}; ${opts.rounds} rounds over ${opts.connections} connections`);
    for (let round = 0; round < opts.rounds; round++) {
      const corpus = restCorpus(server.key);
      const queue = [...corpus];
      await Promise.all(
        Array.from({ length: opts.connections }, async () => {
          for (let item = queue.shift(); item; item = queue.shift()) {
            const status = (await rawRequest(port, item)).split(' ')[1] ?? 'closed';
            statuses.set(status, (statuses.get(status) ?? 0) + 1);
          }
        }),
      );
      await Promise.all(Array.from({ length: 7 }, (_, kind) => streamCase(wsBase, server.key, kind)));
    }
    const peak = Math.max(...samples);
    await sleep(15_000);
    const after = median(samples.slice(-40));
    const alive = (await fetch(`${server.url}/api/v2/sports`)).status === 200;
    const fivexx = [...statuses].filter(([s]) => s.startsWith('5')).reduce((n, [, c]) => n + c, 0);
    const m = machineInfo();
    return [
      `### Hostile corpus (\`bench/hostile.ts --rounds ${opts.rounds} --connections ${opts.connections}\`)`,
      '',
      `Machine: ${m.nproc} CPUs (${m.model}), Node ${m.node}; ${new Date().toISOString().slice(0, 16)} UTC. Server: \`node ${server.nodeFlags.join(' ')} bin/oddsbase.js serve\`, its full history, pinned to CPU 0.`,
      '',
      `- answers by status: ${[...statuses]
        .sort()
        .map(([s, n]) => `${s} ${n}`)
        .join(', ')} (5xx: ${fivexx})`,
      `- RSS: before ${mb(before)}, peak ${mb(peak)}, 15 s after ${mb(after)}; < 400 MB: ${peak < 400 * 1024 * 1024 ? 'met' : '**missed**'}`,
      `- server alive after: ${alive ? 'yes' : '**no**'}`,
    ].join('\n');
  } finally {
    clearInterval(sampler);
    await server.close();
    undo();
  }
}

if (isMain(import.meta.url)) {
  const { values } = parseArgs({ options: { rounds: { type: 'string' }, connections: { type: 'string' } } });
  console.log(await runHostile({ rounds: Number(values.rounds ?? 40), connections: Number(values.connections ?? 16) }));
}
