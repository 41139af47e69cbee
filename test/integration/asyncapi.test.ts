import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { createConfig, lintFromString } from '@redocly/openapi-core';
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import {
  LineMessageSchema,
  LiveDeltaSchema,
  MarketPriceMessageSchema,
  MarketsDeltaSchema,
  MultiplexHeartbeatSchema,
  ScoreDeltaSchema,
  SnapshotCompleteSchema,
  SnapshotErrorSchema,
  SnapshotFrameSchema,
  StreamErrorSchema,
  StreamHeartbeatSchema,
  SubscribedSchema,
  UnsubscribedSchema,
  UsageSchema,
} from '../../src/stream/message-schemas.ts';
import { batch, moneylineMoves, nbaEvent, nbaPrices, score, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { connect, type TestSocket } from '../helpers/ws-client.ts';

/**
 * The AsyncAPI document of the streams (/asyncapi.json): Redocly's recommended rules, the three
 * endpoints with their messages, and real messages of each endpoint held to the message schemas the
 * document is made from.
 */

const E1 = '1'.repeat(32);
const D = today();

let s: TestServer;
let doc: any;

before(async () => {
  s = await startTestServer({ limits: { streamHeartbeatMs: 100 } });
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E1, D, 23) }, ...nbaPrices(E1)]),
  );
  const res = await s.get('/asyncapi.json', {});
  assert.equal(res.status, 200);
  doc = res.body;
});

after(() => s.close());

test('the AsyncAPI document passes Redocly’s recommended rules and describes the three endpoints', async () => {
  const config = await createConfig({ extends: ['recommended'] });
  const problems = await lintFromString({ source: JSON.stringify(doc), absoluteRef: '/asyncapi.json', config });
  assert.deepEqual(
    problems.map((p) => `${p.severity} ${p.ruleId} ${p.location[0]?.pointer}: ${p.message}`),
    [],
  );
  assert.equal(doc.asyncapi, '3.0.0');
  const addresses = Object.values(doc.channels as Record<string, { address: string }>).map((c) => c.address);
  assert.deepEqual(addresses.sort(), ['/api/v1/ws', '/api/v2/ws', '/api/v2/ws/markets']);
  const multiplexed = doc.channels.multiplexed.messages;
  for (const name of ['subscribe', 'subscribed', 'snapshot', 'snapshotComplete', 'marketsDelta', 'error']) {
    assert.ok(multiplexed[name]?.payload?.type === 'object', `the multiplexed endpoint describes ${name}`);
  }
  // The document's payloads are the schemas the messages below are held to.
  assert.deepEqual(
    doc.channels.marketsStream.messages.marketPrice.payload,
    JSON.parse(JSON.stringify(MarketPriceMessageSchema)),
  );
  // The OpenAPI document leaves the streams' paths to this one.
  const openapi = (await s.get('/openapi.json', {})).body as {
    paths: Record<string, unknown>;
    externalDocs?: { url: string };
  };
  assert.equal(openapi.paths['/asyncapi.json'], undefined);
  assert.equal(openapi.externalDocs?.url, '/asyncapi.json');
});

/** The schema a multiplexed message is held to, by its type (and a delta's kind). */
function multiplexSchema(m: any): TSchema {
  switch (m.type) {
    case 'subscribed':
      return SubscribedSchema;
    case 'unsubscribed':
      return UnsubscribedSchema;
    case 'snapshot':
      return SnapshotFrameSchema;
    case 'snapshot_complete':
      return SnapshotCompleteSchema;
    case 'snapshot_error':
      return SnapshotErrorSchema;
    case 'usage':
      return UsageSchema;
    case 'error':
      return StreamErrorSchema;
    case 'heartbeat':
      return MultiplexHeartbeatSchema;
    case 'delta':
      return m.kind === 'market_price' ? MarketsDeltaSchema : m.kind === 'score' ? ScoreDeltaSchema : LiveDeltaSchema;
    default:
      throw new Error(`a message of no described type: ${JSON.stringify(m).slice(0, 200)}`);
  }
}

/** Waits until the socket has received a message that matches, in whatever order it came. */
async function seen(socket: TestSocket, match: (m: any) => boolean): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!socket.messages.some(match)) {
    if (Date.now() > deadline) throw new Error(`no such message; got ${JSON.stringify(socket.messages.slice(-5))}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function assertFits(schema: TSchema, m: unknown): void {
  const errors = [...Value.Errors(schema, m)].slice(0, 3).map((e) => `${e.path}: ${e.message}`);
  assert.deepEqual(errors, [], JSON.stringify(m).slice(0, 400));
}

test('real messages of the three endpoints fit the described schemas', async () => {
  const ws = s.url.replace('http', 'ws');
  const header = { 'X-Service-Key': s.key };
  const v1Key = await s.newKey('enterprise', { v1: true });
  const sockets: TestSocket[] = [];
  try {
    const markets = await connect(`${ws}/api/v2/ws/markets?sport_ids=4`, header);
    const v1 = await connect(`${ws}/api/v1/ws?sport_ids=4`, { 'X-Service-Key': v1Key });
    const mux = await connect(`${ws}/api/v2/ws`, header);
    sockets.push(markets, v1, mux);

    mux.send({ action: 'subscribe', id: 'm', channel: 'markets', params: { event_ids: [E1], snapshot: true } });
    mux.send({ action: 'subscribe', id: 's', channel: 'scores', params: { event_ids: E1, snapshot: true } });
    mux.send({ action: 'subscribe', id: 'x', channel: 'stats', params: { event_ids: [E1], snapshot: true } });
    mux.send({ action: 'subscribe', id: 'm', channel: 'markets' });
    mux.send({ action: 'usage', id: 'u' });
    await seen(mux, (m) => m.type === 'snapshot_complete' && m.id === 's');
    await seen(mux, (m) => m.type === 'usage');

    const at = new Date().toISOString();
    for (const b of moneylineMoves(E1, 1, at)) await s.server.ledger.apply(b);
    await s.server.ledger.apply(
      batch(at, [{ kind: 'score', event_id: E1, score: score(E1, 'STATUS_IN_PROGRESS', 3, 5) }]),
    );
    await seen(markets, (m) => m.meta?.type === 'market_price');
    await seen(markets, (m) => m.meta?.type === 'heartbeat');
    await seen(v1, (m) => m.meta?.type === 'line');
    await seen(v1, (m) => m.meta?.type === 'heartbeat');
    await seen(mux, (m) => m.type === 'delta' && m.kind === 'market_price');
    await seen(mux, (m) => m.type === 'delta' && m.kind === 'score');
    await seen(mux, (m) => m.type === 'heartbeat');
    mux.send({ action: 'unsubscribe', id: 's' });
    await seen(mux, (m) => m.type === 'unsubscribed');

    for (const m of markets.messages) {
      assertFits(m.meta?.type === 'heartbeat' ? StreamHeartbeatSchema('v2') : MarketPriceMessageSchema, m);
    }
    for (const m of v1.messages)
      assertFits(m.meta?.type === 'heartbeat' ? StreamHeartbeatSchema('v1') : LineMessageSchema, m);
    for (const m of mux.messages) assertFits(multiplexSchema(m), m);
    const types = new Set(mux.messages.map((m) => (m.type === 'delta' ? `delta ${m.kind}` : m.type)));
    for (const t of [
      'subscribed',
      'snapshot',
      'snapshot_complete',
      'snapshot_error',
      'error',
      'usage',
      'delta market_price',
      'delta score',
      'unsubscribed',
    ]) {
      assert.ok(types.has(t), `a ${t} message was checked (${[...types].join(', ')})`);
    }
  } finally {
    for (const socket of sockets) await socket.close();
  }
});
