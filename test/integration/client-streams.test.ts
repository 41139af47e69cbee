import assert from 'node:assert/strict';
import { createServer, type Server, type Socket, connect as tcpConnect } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { Value } from '@sinclair/typebox/value';
import { WebSocket } from 'ws';
import {
  GameStatsMerger,
  type MarketPrice,
  marketStream,
  MultiplexStream,
  OddsbaseClient,
  type ServerMessage,
  type StreamOptions,
  v1LineStream,
  type WebSocketConstructor,
} from '../../packages/client/src/index.ts';
import { MarketPriceDataSchema } from '../../src/stream/message-schemas.ts';
import { batch, nbaEvent, nbaPrices, price, rotationPlay, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';

const E = 'd7'.repeat(16);
const LIVE = 'd8'.repeat(16);

/**
 * A TCP relay in front of the server, so that a test can cut every connection (a network drop) or
 * swallow what the server sends (a stalled stream) without the server knowing.
 */
class Relay {
  readonly server: Server;
  private readonly pairs = new Set<[Socket, Socket]>();
  stalled = false;
  port = 0;

  constructor(target: number) {
    this.server = createServer((down) => {
      const up = tcpConnect(target, '127.0.0.1');
      const pair: [Socket, Socket] = [down, up];
      this.pairs.add(pair);
      down.on('data', (d) => up.write(d));
      up.on('data', (d) => {
        if (!this.stalled) down.write(d);
      });
      const end = () => {
        this.pairs.delete(pair);
        down.destroy();
        up.destroy();
      };
      down.on('close', end).on('error', end);
      up.on('close', end).on('error', end);
    });
  }

  async listen(): Promise<string> {
    await new Promise<void>((r) => this.server.listen(0, '127.0.0.1', r));
    this.port = (this.server.address() as { port: number }).port;
    return `http://127.0.0.1:${this.port}`;
  }

  cut(): void {
    for (const [down, up] of this.pairs) {
      down.destroy();
      up.destroy();
    }
  }

  close(): Promise<void> {
    this.cut();
    return new Promise((r) => this.server.close(() => r()));
  }
}

let s: TestServer;
let relay: Relay;
let client: OddsbaseClient;
/** Short liveness numbers instead of the spec's 30 s, so that a dead stream is seen at once. */
const fast: StreamOptions = {
  WebSocket: WebSocket as unknown as WebSocketConstructor,
  silenceMs: 600,
  backoffMs: { first: 50, max: 400 },
};
let step = 0;

const move = (eventId = E) =>
  s.server.ledger.apply(
    batch(new Date().toISOString(), [
      price(eventId, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: 19,
        price: 100 + ++step,
      }),
    ]),
  );

/** Resolves with the first event `name` of `emitter` that `match` accepts. */
function once<T>(on: (fn: (v: T) => void) => void, match: (v: T) => boolean = () => true, ms = 5000): Promise<T> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('timed out')), ms);
    on((v) => {
      if (match(v)) {
        clearTimeout(timer);
        resolve(v);
      }
    });
  });
}

before(async () => {
  s = await startTestServer();
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [
      { kind: 'event', event: nbaEvent(E) },
      { kind: 'event', event: nbaEvent(LIVE, today(), 1) },
      ...nbaPrices(E),
      { kind: 'score', event_id: LIVE, score: score(LIVE, 'STATUS_IN_PROGRESS', 0, 0) },
    ]),
  );
  relay = new Relay(Number(new URL(s.url).port));
  client = new OddsbaseClient({ baseUrl: await relay.listen(), key: s.key });
});

after(async () => {
  await relay.close();
  await s.close();
});

describe('dedicated markets stream', () => {
  test('prices through the iterator and the emitter; a cut connection reconnects with backoff', async () => {
    const stream = marketStream(client, { event_ids: [E] }, fast);
    const seen: MarketPrice[] = [];
    stream.on('data', (p) => seen.push(p));
    await once<{ reconnect: boolean }>((f) => stream.on('open', f));
    await move();
    const it = stream[Symbol.asyncIterator]();
    const first = (await it.next()).value as MarketPrice;
    assert.equal(first.event_id, E);
    assert.equal(first.price, String(100 + step));
    assert.equal(typeof first.normalized_market_participant_id, 'number');
    // The client's MarketPrice is Static<> of this schema: what it delivers must fit it exactly.
    assert.deepEqual([...Value.Errors(MarketPriceDataSchema, first)], []);
    assert.deepEqual(seen, [first]);

    const down = once<{ willRetryInMs?: number }>((f) => stream.on('down', f));
    const reopened = once<{ reconnect: boolean }>((f) => stream.on('open', f));
    relay.cut();
    assert.equal((await down).willRetryInMs, 50, 'the first wait of the backoff');
    assert.deepEqual(await reopened, { reconnect: true });
    await move();
    assert.equal(((await it.next()).value as MarketPrice).price, String(100 + step));
    stream.close();
    assert.equal((await it.next()).done, true);
  });

  test('a stalled stream is declared dead after the silence and replaced', async () => {
    const stream = marketStream(client, { event_ids: [E] }, fast);
    await once<{ reconnect: boolean }>((f) => stream.on('open', f));
    relay.stalled = true;
    const down = await once<{ reason: string }>((f) => stream.on('down', f));
    assert.match(down.reason, /no message for 600 ms/);
    relay.stalled = false;
    assert.deepEqual(await once<{ reconnect: boolean }>((f) => stream.on('open', f)), { reconnect: true });
    const next = once<MarketPrice>((f) => stream.on('data', f));
    await move();
    assert.equal((await next).price, String(100 + step));
    stream.close();
  });
});

describe('authentication and the V1 stream', () => {
  test('a one-use token instead of the header, for WebSocket constructors that cannot send one', async () => {
    const stream = marketStream(client, { event_ids: [E] }, { ...fast, auth: 'token' });
    await once<{ reconnect: boolean }>((f) => stream.on('open', f));
    const next = once<MarketPrice>((f) => stream.on('data', f));
    await move();
    assert.equal((await next).event_id, E);
    // A reconnect asks a new token: the first was spent.
    const reopened = once<{ reconnect: boolean }>((f) => stream.on('open', f));
    relay.cut();
    assert.deepEqual(await reopened, { reconnect: true });
    stream.close();
  });

  test('an upgrade refused as unauthorized stops the stream: no retry can fix a bad key', async () => {
    const bad = new OddsbaseClient({ baseUrl: client.transport.baseUrl, key: 'ob_' + '0'.repeat(40) });
    const stream = marketStream(bad, {}, fast);
    const down = await once<{ reason: string; willRetryInMs?: number }>((f) => stream.on('down', f));
    assert.match(down.reason, /401/);
    assert.equal(down.willRetryInMs, undefined);
    await assert.rejects(stream[Symbol.asyncIterator]().next(), /stream stopped/);
  });

  test('an upgrade refused at the connection cap waits its Retry-After, not the backoff', async () => {
    const ultra = new OddsbaseClient({ baseUrl: client.transport.baseUrl, key: await s.newKey('ultra') });
    const held = [];
    for (let i = 0; i < 5; i++) {
      const open = marketStream(ultra, {}, fast);
      await once<{ reconnect: boolean }>((f) => open.on('open', f));
      held.push(open);
    }
    const sixth = marketStream(ultra, {}, fast);
    const down = await once<{ reason: string; willRetryInMs?: number }>((f) => sixth.on('down', f));
    assert.match(down.reason, /429/);
    assert.equal(down.willRetryInMs, 5000, 'Retry-After: 5 rather than the first 50 ms of the backoff');
    sixth.close();
    for (const h of held) h.close();
  });

  test('the V1 stream delivers line sets', async () => {
    const v1 = new OddsbaseClient({ baseUrl: client.transport.baseUrl, key: await s.newKey('ultra', { v1: true }) });
    const stream = v1LineStream(v1, { event_ids: [E] }, fast);
    await once<{ reconnect: boolean }>((f) => stream.on('open', f));
    const it = stream[Symbol.asyncIterator]();
    await move();
    const set = (await it.next()).value!;
    assert.equal(set.event_id, E);
    assert.equal(set.affiliate_id, 19);
    assert.equal(set.moneyline.moneyline_away, 100 + step);
    await it.return!();
  });
});

describe('multiplexed stream', () => {
  test('re-sends its subscriptions after a drop and resumes from the last position: nothing missed', async () => {
    const mux = new MultiplexStream(client, fast);
    const deltas: ServerMessage[] = [];
    mux.on('delta', (m) => deltas.push(m));
    mux.subscribe('m', 'markets', { event_ids: [E], market_ids: [1] });
    await once<ServerMessage>(
      (f) => mux.on('message', f),
      (m) => m.type === 'subscribed',
    );
    await move();
    await once<ServerMessage>((f) => mux.on('delta', f));
    const before = mux.position('m')!;
    assert.equal(typeof before.epoch, 'string');

    relay.stalled = true;
    relay.cut();
    relay.stalled = false;
    // Two changes while the client is away.
    await move();
    await move();
    const resumed = await once<{ id: string }>((f) => mux.on('resumed', f));
    assert.equal(resumed.id, 'm');
    assert.deepEqual(
      deltas.map((d) => (d.data as MarketPrice).price),
      [String(100 + step - 2), String(100 + step - 1), String(100 + step)],
      'the two missed prices replayed in order',
    );
    assert.ok(mux.position('m')!.id > before.id);
    mux.close();
  });
});

/** The merged box holds exactly the values the REST boxes hold. */
async function assertBoxIsRest(merger: GameStatsMerger, eventId: string): Promise<void> {
  const box = merger.box(eventId)!;
  const teams = (await client.teamGameStats(eventId)).data;
  const players = (await client.playerGameStats(eventId)).data;
  assert.ok(teams.length === 2 && players.length > 0);
  for (const g of teams) {
    assert.deepEqual(
      Object.fromEntries([...box.teams.get(g.team.team_id)!].map(([id, v]) => [id, v.value])),
      Object.fromEntries(g.stats.map((r) => [r.stat_id, r.value])),
      `team ${g.team.team_id}`,
    );
  }
  for (const g of players) {
    assert.deepEqual(
      Object.fromEntries([...box.players.get(g.player.id)!.stats].map(([id, v]) => [id, v.value])),
      Object.fromEntries(g.stats.map((r) => [r.stat.id, r.value])),
      `player ${g.player.id}`,
    );
  }
}

describe('game stats merge', () => {
  test('REST baseline, buffered frames, a gap while disconnected: the merged box equals REST', async () => {
    const mux = new MultiplexStream(client, fast);
    const merger = new GameStatsMerger(client, mux, 'st');
    mux.subscribe('st', 'stats', { event_ids: [LIVE] });
    await once<ServerMessage>(
      (f) => mux.on('message', f),
      (m) => m.type === 'subscribed',
    );
    let at = { away: 0, home: 0 };
    const plays = async (from: number, n: number) => {
      const updates = [];
      for (let k = from; k < from + n; k++) {
        const p = rotationPlay(k, at);
        at = { away: p.score_away, home: p.score_home };
        updates.push({ kind: 'play' as const, event_id: LIVE, play: p });
      }
      await s.server.ledger.apply(batch(new Date().toISOString(), updates));
    };
    const boxed = once((f) => merger.on('box', f));
    await plays(1, 6);
    await boxed;

    relay.stalled = true;
    relay.cut();
    relay.stalled = false;
    await plays(7, 9);
    await once<{ id: string }>((f) => mux.on('resumed', f));
    await plays(16, 3);
    await once((f) => merger.on('box', f));
    // Let every frame of the last batch land.
    await new Promise((r) => setTimeout(r, 200));

    await assertBoxIsRest(merger, LIVE);
    assert.equal(merger.box(LIVE)!.complete, false);

    // A resume the server refuses (a position of another log): the box is rebuilt from REST and
    // the frames buffered meanwhile are merged on it.
    mux.position('st')!.epoch = 'another-log';
    const resync = once<{ id: string; reason: string }>((f) => mux.on('resync', f));
    relay.cut();
    await plays(19, 7);
    assert.equal((await resync).id, 'st');
    await once((f) => merger.on('box', f));
    await plays(26, 4);
    await once((f) => merger.on('box', f));
    await new Promise((r) => setTimeout(r, 200));
    await assertBoxIsRest(merger, LIVE);

    const complete = once(
      (f) => merger.on('box', f),
      () => merger.box(LIVE)!.complete,
    );
    await s.server.ledger.apply(
      batch(new Date().toISOString(), [
        { kind: 'score', event_id: LIVE, score: score(LIVE, 'STATUS_FINAL', at.away, at.home) },
      ]),
    );
    await complete;
    mux.close();
  });
});
