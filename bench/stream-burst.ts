/**
 * A burst of price changes (many games moving at once, as when they go live together) fanned out to
 * many stream clients, and what it does to REST requests arriving meanwhile.
 *
 *   node --import tsx bench/stream-burst.ts [--clients 24] [--events 50] [--bursts 5] [--batch 500]
 *
 * The real server (in this process, pinned to CPU 0 when taskset is there, no simulator) gets
 * `--events` NBA events, each priced by 10 books (moneyline, spread and total, both sides: 60
 * prices), and `--clients` WebSocket clients on /api/v2/ws/markets, which receive every price
 * change. Four REST clients poll /api/v2/sports (a cheap answer the burst does not change) one
 * request after another. The clients run in two child processes on CPU 1. Each burst moves every
 * price once, committed in batches of `--batch` updates with a turn of the loop between two, as the
 * simulator's live steps commit; it ends when every client has received every message. Reported per
 * burst: the longest REST request that overlapped it, the event loop's longest delay
 * (`monitorEventLoopDelay`), and how long the last client waited for its last message.
 */
import { type ChildProcess, fork } from 'node:child_process';
import { once } from 'node:events';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setImmediate as loopTurn } from 'node:timers/promises';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { WebSocket } from 'ws';
import type { PriceUpdate } from '../src/ledger/updates.ts';
import { batch, nbaEvent, price } from '../test/helpers/fixtures.ts';
import { startTestServer } from '../test/helpers/server.ts';
import { pinSelf } from './lib.ts';

const BOOKS = [3, 4, 6, 11, 12, 14, 16, 19, 22, 23];

/** Every price of one event at 10 books: moneyline, spread and total, both sides, moved by `shift`. */
function prices(eventId: string, shift: number): PriceUpdate[] {
  const out: PriceUpdate[] = [];
  for (const aff of BOOKS) {
    for (const [team, base, line] of [
      [2002, 130, '3.5'],
      [2014, -150, '-3.5'],
    ] as const) {
      out.push(price(eventId, { market_id: 1, participant_id: team, affiliate_id: aff, price: base + shift }));
      out.push(
        price(eventId, {
          market_id: 2,
          participant_id: team,
          affiliate_id: aff,
          line,
          price: -110 + shift,
          is_main_line: true,
        }),
      );
    }
    for (const side of [0, 1]) {
      out.push(
        price(eventId, {
          market_id: 3,
          participant_id: side,
          affiliate_id: aff,
          line: '220.5',
          price: -110 + shift,
          is_main_line: true,
        }),
      );
    }
  }
  return out;
}

/**
 * The children, on CPU 1: `ws URL KEY N` counts messages and answers `{expect}` with `done` once it
 * has them; `rest URL` polls.
 */
if (process.argv[2] === 'ws') {
  pinSelf('1');
  const [, , , url, key, n] = process.argv;
  let received = 0;
  let expect = Infinity;
  const check = () => {
    if (received >= expect) {
      expect = Infinity;
      process.send!('done');
    }
  };
  await Promise.all(
    Array.from(
      { length: Number(n) },
      () =>
        new Promise<void>((resolve, reject) => {
          const c = new WebSocket(url!, { headers: { 'X-Service-Key': key! } });
          c.on('message', () => {
            received++;
            check();
          });
          c.once('open', () => resolve());
          c.once('error', reject);
        }),
    ),
  );
  process.on('message', (m: { expect: number }) => {
    expect = m.expect;
    check();
  });
  process.send!('open');
} else if (process.argv[2] === 'rest') {
  pinSelf('1');
  const url = process.argv[3]!;
  const spans: [number, number][] = [];
  let polling = true;
  process.on('message', (m: string) => {
    if (m === 'stop') polling = false;
  });
  process.send!('open');
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (polling) {
        // Wall-clock ms with the monotonic clock's precision, comparable across the processes.
        const start = performance.timeOrigin + performance.now();
        const res = await fetch(url);
        await res.arrayBuffer();
        spans.push([start, performance.timeOrigin + performance.now()]);
      }
    }),
  );
  process.send!(spans, () => process.exit(0));
} else {
  await main();
}

async function main(): Promise<void> {
  const { values: args } = parseArgs({
    options: {
      clients: { type: 'string', default: '24' },
      events: { type: 'string', default: '50' },
      bursts: { type: 'string', default: '5' },
      batch: { type: 'string', default: '500' },
    },
  });
  const clients = Number(args.clients);
  const events = Number(args.events);
  const bursts = Number(args.bursts);
  const batchSize = Number(args.batch);
  const affinity = pinSelf('0');
  const s = await startTestServer({ limits: { streamQueueMessages: 1_000_000 } });
  const children: ChildProcess[] = [];
  try {
    const at = () => new Date().toISOString();
    const ids = Array.from({ length: events }, (_, i) => `b${String(i).padStart(3, '0')}`.repeat(8));
    await s.server.ledger.apply(
      batch(
        at(),
        ids.map((id, i) => ({ kind: 'event' as const, event: nbaEvent(id, undefined, i % 24) })),
      ),
    );
    for (const id of ids) await s.server.ledger.apply(batch(at(), prices(id, 0)));

    const start = async (args: string[]) => {
      const c = fork(fileURLToPath(import.meta.url), args, { execArgv: ['--import', 'tsx'] });
      children.push(c);
      await once(c, 'message');
      return c;
    };
    const ws = await start(['ws', `${s.url.replace('http', 'ws')}/api/v2/ws/markets`, s.key, String(clients)]);
    const rest = await start(['rest', `${s.url}/api/v2/sports`]);

    const rows: { updates: number; lastMs: number; spans: [number, number]; delayMs: number }[] = [];
    for (let b = 1; b <= bursts; b++) {
      await new Promise((r) => setTimeout(r, 500));
      const updates = ids.flatMap((id) => prices(id, b % 2 === 0 ? 0 : 5));
      const delay = monitorEventLoopDelay({ resolution: 1 });
      const done = once(ws, 'message');
      // The counts add up over the bursts, all of one size.
      ws.send({ expect: b * updates.length * clients });
      delay.enable();
      const p0 = performance.now();
      const t0 = performance.timeOrigin + p0;
      for (let i = 0; i < updates.length; i += batchSize) {
        if (i > 0) await loopTurn();
        await s.server.ledger.apply(batch(at(), updates.slice(i, i + batchSize)));
      }
      await done;
      const lastMs = performance.now() - p0;
      delay.disable();
      rows.push({ updates: updates.length, lastMs, spans: [t0, t0 + lastMs], delayMs: delay.max / 1e6 });
    }
    const spansDone = once(rest, 'message');
    rest.send('stop');
    const [spans] = (await spansDone) as [[number, number][]];
    console.log(
      '| burst | updates | clients | last message after, ms | REST requests during | longest REST request, ms | loop delay max, ms |',
    );
    console.log('|---:|---:|---:|---:|---:|---:|---:|');
    rows.forEach((r, i) => {
      const during = spans.filter(([a, b]) => b >= r.spans[0] && a <= r.spans[1]);
      const longest = Math.max(0, ...during.map(([a, b]) => b - a));
      console.log(
        `| ${i + 1} | ${r.updates} | ${clients} | ${r.lastMs.toFixed(0)} | ${during.length} | ${longest.toFixed(1)} | ${r.delayMs.toFixed(1)} |`,
      );
    });
  } finally {
    for (const c of children) c.kill();
    await s.close();
    if (affinity) pinSelf(affinity);
  }
}
