import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { catalogAnswers } from '../helpers/catalog-answers.ts';
import { nbaEvent, price } from '../helpers/fixtures.ts';
import { withoutCatalog } from '../helpers/old-store.ts';
import { adminToken, startTestServer, type TestServer } from '../helpers/server.ts';

/** The listing answers as the code's tables gave them before the catalog became rows. */
// From the working directory: the compiled tests (test/build.mjs) carry no JSON beside them.
const before = JSON.parse(
  readFileSync(join(process.cwd(), 'test', 'fixtures', 'catalog-answers.json'), 'utf8'),
) as Record<string, string>;

/** Paths whose answers differ, with both hashes: an empty list when every answer is the same. */
function differences(now: Record<string, string>): string[] {
  const paths = new Set([...Object.keys(before), ...Object.keys(now)]);
  return [...paths].filter((p) => before[p] !== now[p]).map((p) => `${p}: ${before[p]} -> ${now[p]}`);
}

test('a simulator store lists the catalog byte for byte as the code tables did', async () => {
  // Motor racing only: futures boards and no games, so no team carries a record to list.
  const s = await startTestServer({ sports: [41] });
  try {
    assert.deepEqual(differences(await catalogAnswers(s)), []);
  } finally {
    await s.close();
  }
});

test('an ingest store starts with the same catalog', async () => {
  const s = await startTestServer({ feed: 'ingest' });
  try {
    assert.deepEqual(differences(await catalogAnswers(s)), []);
  } finally {
    await s.close();
  }
});

test('a store made before the catalog was rows starts, takes the simulator catalog, and goes on', async () => {
  const E = 'old0000000000000000000000000001';
  let s = await startTestServer({ feed: 'ingest' });
  const token = await adminToken(s);
  const send = (server: TestServer, batchId: string, records: unknown[]) =>
    fetch(`${server.url}/admin/v1/ingest`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
      body: JSON.stringify({ batch_id: batchId, records }),
    });
  const moneyline = (value: number) =>
    price(E, { market_id: 1, participant_id: 2002, participant_name: 'Boston', affiliate_id: 19, price: value });
  assert.equal((await send(s, 'old-1', [{ kind: 'event', event: nbaEvent(E) }, moneyline(120)])).status, 200);
  const dataDir = s.dataDir;
  await s.close({ keepData: true });
  assert.ok(withoutCatalog(dataDir) > 1000, 'the store held the catalog as rows');

  s = await startTestServer({ feed: 'ingest', dataDir });
  try {
    // Sport 4's teams now carry the records of the event this store holds; every other answer is the same.
    assert.deepEqual(
      differences(await catalogAnswers(s)).filter((d) => !/^\/api\/v[12]\/sports\/4\/teams:/.test(d)),
      [],
    );
    const teams = (await s.get('/api/v2/sports/4/teams')).body.teams;
    assert.equal(teams.find((t: any) => t.team_id === 2002).record, '10-5');
    const ev = (await s.get(`/api/v2/events/${E}`)).body.events[0];
    assert.equal(ev.markets[0].participants[0].lines[0].prices['19'].price, 120);
    // Book 19 and sport 4 are the catalog's again: a new price on them is taken.
    assert.equal((await send(s, 'old-2', [moneyline(125)])).status, 200);
  } finally {
    await s.close();
  }
});
