import assert from 'node:assert/strict';
import { request } from 'node:http';
import { connect, type Socket } from 'node:net';
import { after, before, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { batch, moneylineMoves, nbaEvent, nbaPrices } from '../helpers/fixtures.ts';
import { logBase, startTestServer, type TestServer } from '../helpers/server.ts';

const EVENT = 'e8'.repeat(16);
/** Markets delta pages from the first row: older than the few rows the server keeps in memory. */
const page = (limit: number) => `/api/v2/markets/delta?last_id=0&limit=${limit}`;

let s: TestServer;
/** Chunks read from the store for markets delta pages since the counter was last reset. */
let chunkReads = 0;
/** Chunks whose bytes the store lent (memory it reuses) and that are not given back yet. */
const lent = new Set<object>();
/** Chunks ever lent. */
let lentEver = 0;

before(async () => {
  const first = await startTestServer();
  const at = new Date().toISOString();
  await first.server.ledger.apply(batch(at, [{ kind: 'event', event: nbaEvent(EVENT) }, ...nbaPrices(EVENT)]));
  // 6,400 price rows.
  for (const moves of moneylineMoves(EVENT, 400, at)) await first.server.ledger.apply(moves);
  await first.close({ keepData: true });
  // Started again keeping about 3 rows in memory: every page below is read from the store.
  s = await startTestServer({ dataDir: first.dataDir, limits: { deltaMemoryKb: 1 } });
  const store = s.server.services.store;
  const read = store.readPayloadBytes.bind(store);
  store.readPayloadBytes = async (q) => {
    chunkReads++;
    const chunk = await read(q);
    const give = chunk.release;
    if (!give) return chunk;
    const lease = {};
    lent.add(lease);
    lentEver++;
    return {
      ...chunk,
      release: () => {
        lent.delete(lease);
        give();
      },
    };
  };
});

after(() => s.close());

/** Waits until no chunk has been read for `quietMs`. */
async function settled(quietMs = 300): Promise<void> {
  let seen = -1;
  while (seen !== chunkReads) {
    seen = chunkReads;
    await sleep(quietMs);
  }
}

test('a page read from the store takes one chunk read per 250 rows', async () => {
  await settled();
  chunkReads = 0;
  const res = await s.get(page(5000));
  assert.equal(res.status, 200);
  assert.equal(res.body.meta.count, 5000, JSON.stringify(res.body).slice(0, 300));
  assert.equal(chunkReads, 20);
});

test('pages asked by a connection that closed are not read on, queued or begun', async () => {
  await settled();
  chunkReads = 0;
  // Eight distinct pages pipelined, and the connection closed at once: no one will read them.
  await new Promise<void>((resolve, reject) => {
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1', () => {
      const requests = [5000, 4999, 4998, 4997, 4996, 4995, 4994, 4993]
        .map((n) => `GET ${page(n)} HTTP/1.1\r\nHost: localhost\r\nX-Service-Key: ${s.key}\r\n\r\n`)
        .join('');
      socket.end(requests, () => {
        socket.destroy();
        resolve();
      });
    });
    socket.on('error', reject);
  });
  await settled();
  // Read through, the eight pages take 160 chunk reads; at most the reads begun before the
  // server saw the close go on, and those stop at their next chunk.
  assert.ok(chunkReads <= 8, `${chunkReads} chunks read for pages no one will read`);

  // The server goes on serving, the same pages among others.
  const res = await s.get(page(4999));
  assert.equal(res.status, 200);
  assert.equal(res.body.meta.count, 4999);
});

/** Opens a connection and sends a GET for each of `paths` at once (pipelined); resolves to the socket. */
function rawRequests(paths: string[]): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(new URL(s.url).port), '127.0.0.1', () => {
      socket.write(
        paths.map((p) => `GET ${p} HTTP/1.1\r\nHost: localhost\r\nX-Service-Key: ${s.key}\r\n\r\n`).join(''),
      );
      resolve(socket);
    });
    socket.on('error', reject);
  });
}

test('what the store lends for a page is given back once the page is written out', async () => {
  await settled();
  const before = lentEver;
  const res = await s.get(page(4990));
  assert.equal(res.status, 200);
  assert.equal(res.body.meta.count, 4990);
  assert.ok(lentEver - before >= 19, `${lentEver - before} chunks lent`);
  assert.equal(lent.size, 0);
});

test('what the store lends for a page is given back when its client goes, reading or not', async () => {
  await settled();
  const before = lentEver;
  // One client reads the start of its answer and goes; one pipelines four pages and never reads.
  const reading = await rawRequests([page(4980)]);
  await new Promise<void>((resolve) => reading.once('data', () => resolve()));
  reading.destroy();
  const idle = await rawRequests([page(4981), page(4982), page(4983), page(4984)]);
  idle.pause();
  await settled();
  idle.destroy();
  await settled();
  assert.ok(lentEver - before >= 20, `${lentEver - before} chunks lent`);
  for (let i = 0; i < 50 && lent.size > 0; i++) await sleep(20);
  assert.equal(lent.size, 0, `${lent.size} chunks still lent after their clients went`);
});

test('a page kept for its readers holds its own bytes, not memory lent for one answer', async () => {
  await settled();
  // Read twice, the page is kept; other pages read meanwhile reuse the memory its reads were lent.
  const base = await logBase(s.server.services.store);
  const from = (lastId: number) => `/api/v2/markets/delta?last_id=${base + lastId}&limit=4000`;
  const first = await fetchText(from(10));
  assert.equal(await fetchText(from(10)), first);
  for (const lastId of [20, 30, 40, 50]) assert.equal((await s.get(from(lastId))).status, 200);
  assert.equal(await fetchText(from(10)), first);
});

async function fetchText(path: string): Promise<string> {
  const res = await fetch(s.url + path, { headers: { 'X-Service-Key': s.key } });
  assert.equal(res.status, 200);
  return res.text();
}

/** A GET with a JSON body framed by Content-Length, on a connection of its own: status and body. */
function getWithBody(path: string, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      s.url + path,
      {
        method: 'GET',
        agent: false,
        headers: {
          'X-Service-Key': s.key,
          'Content-Type': 'application/json',
          'Content-Length': String(Buffer.byteLength(body)),
        },
      },
      (res) => {
        let text = '';
        res.on('data', (c) => (text += String(c)));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, text }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

test('a GET with a body, read and dropped, is answered: its client has not gone', async () => {
  // Asked first with the body: the snapshot's first build and a page read from the store both wait
  // for turns that stop when the client has gone.
  for (const path of [`/api/v2/sports/4/events/${new Date().toISOString().slice(0, 10)}`, page(333)]) {
    const r = await getWithBody(path, '{"filter":"ignored"}');
    assert.equal(r.status, 200, `${path}: ${r.text.slice(0, 200)}`);
    const plain = await s.get(path);
    assert.equal(r.text, JSON.stringify(plain.body), path);
  }
});
