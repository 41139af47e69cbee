import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { parseCsv, send, toBatches } from '../../examples/csv-odds/csv-to-ingest.ts';
import { nbaEvent } from '../helpers/fixtures.ts';
import { adminToken, startTestServer, type TestServer } from '../helpers/server.ts';

const EVENT = 'csv0000000000000000000000000001';
const CSV = `event,book,market,side,line,price,time
${EVENT},19,moneyline,2002,,+120,2026-12-06T18:00:00Z
${EVENT},19,moneyline,2014,,-140,2026-12-06T18:00:00Z
${EVENT},19,spread,2014,-3.5,-110,2026-12-06T18:00:00Z
${EVENT},19,total,over,221.5,-105,2026-12-06T18:00:00Z
${EVENT},22,moneyline,2002,,off,2026-12-06T18:05:00Z
${EVENT},19,total,over,221.5,closed,2026-12-06T18:05:00Z
`;

let s: TestServer;
let token: string;

before(async () => {
  s = await startTestServer({ feed: 'ingest' });
  token = await adminToken(s);
  const res = await fetch(`${s.url}/admin/v1/ingest`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({ batch_id: 'csv-events', records: [{ kind: 'event', event: nbaEvent(EVENT) }] }),
  });
  assert.equal(res.status, 200);
});
after(() => s.close());

test('rows become one batch per time, with the sentinel and a closed price', () => {
  const { batches, errors } = toBatches(parseCsv(CSV), 'odds.csv');
  assert.deepEqual(errors, []);
  assert.deepEqual(
    batches.map((b) => [b.batch_id, b.at, b.records.length]),
    [
      ['odds.csv:1', '2026-12-06T18:00:00.000Z', 4],
      ['odds.csv:2', '2026-12-06T18:05:00.000Z', 2],
    ],
  );
  assert.equal(batches[1]!.records[0]!.price, 0.0001);
  assert.deepEqual([batches[1]!.records[1]!.price, batches[1]!.records[1]!.closed], [-105, true]);
});

test('bad rows are named by line', () => {
  const bad = `event,book,market,side,line,price,time
${EVENT},book,moneyline,2002,,+120,2026-12-06T18:00:00Z
${EVENT},19,moneyline,2002,,evens,2026-12-06T18:00:00Z
${EVENT},19,total,over,221.5,closed,2026-12-06T18:00:00Z
`;
  assert.deepEqual(
    toBatches(parseCsv(bad), 'bad.csv').errors.map((e) => e.split(':')[0]),
    ['line 2', 'line 3', 'line 4'],
  );
  assert.throws(() => parseCsv('event,book\n'), /lacks market, side, line, price, time/);
});

test('the batches are served, and the same file sent again applies nothing', async () => {
  const { batches } = toBatches(parseCsv(CSV), 'odds.csv');
  const first = await send(s.url, token, batches);
  assert.deepEqual(
    first.map((a) => a.applied),
    [true, true],
  );
  const ev = (await s.get(`/api/v2/events/${EVENT}?market_ids=1,2,3`)).body.events[0];
  const ml = ev.markets.find((m: any) => m.market_id === 1);
  const boston = ml.participants.find((p: any) => p.id === 2002);
  assert.equal(boston.lines[0].prices['19'].price, 120);
  assert.equal(boston.lines[0].prices['22'].price, 0.0001);
  const head = s.server.ledger.headId;
  const again = await send(s.url, token, batches);
  assert.deepEqual(
    again.map((a) => a.applied),
    [false, false],
  );
  assert.equal(s.server.ledger.headId, head);
});
