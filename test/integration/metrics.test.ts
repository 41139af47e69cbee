import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { compose } from '../../src/compose.ts';
import { ConfigError, resolveServeConfig } from '../../src/config.ts';
import { listenMetrics } from '../../src/ops/metrics-endpoint.ts';
import { batch, nbaEvent, nbaPrices, price, today } from '../helpers/fixtures.ts';
import { type PromFamily, parsePrometheus } from '../helpers/prometheus.ts';
import { logBase, startTestServer, type TestServer } from '../helpers/server.ts';

const E = 'ae'.repeat(16);
let s: TestServer;
/** The head before the test's batches: the start wrote only the catalog's rows, which no delayed view holds. */
let catalogHead: number;

before(async () => {
  s = await startTestServer();
  catalogHead = s.server.ledger.position.id;
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [{ kind: 'event', event: nbaEvent(E) }, ...nbaPrices(E)]),
  );
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 140 })]),
  );
  // Moved on as a plan's read moves them: else they move at their 250 ms tick, which a start that
  // did not have to make the simulator's catalog (made once per process) may not have reached.
  for (const delay of [30, 60, 300]) s.server.services.views.forDelay(delay);
});

after(() => s.close());

interface Scrape {
  families: PromFamily[];
  /** The value of the one sample named `name` whose labels include `labels`. */
  value(name: string, labels?: Record<string, string>): number;
  has(name: string): boolean;
}

/** Parses a scrape with the reference parser and checks that it read every sample line. */
async function parsed(text: string): Promise<Scrape> {
  const families = await parsePrometheus(text);
  const sampleLines = text.split('\n').filter((l) => l !== '' && !l.startsWith('#')).length;
  assert.equal(
    families.reduce((n, f) => n + f.samples.length, 0),
    sampleLines,
  );
  const samples = families.flatMap((f) => f.samples);
  return {
    families,
    value(name, labels = {}) {
      const found = samples.filter(
        (x) => x.name === name && Object.entries(labels).every(([k, v]) => x.labels[k] === v),
      );
      assert.equal(found.length, 1, `one sample ${name} ${JSON.stringify(labels)}: ${found.length}`);
      return found[0]!.value;
    },
    has: (name) => samples.some((x) => x.name === name),
  };
}

/** Scrapes the metrics listener as Prometheus would. */
async function scrape(): Promise<Scrape> {
  const res = await fetch(s.server.metricsUrl!);
  assert.equal(res.status, 200);
  assert.match(res.headers.get('content-type') ?? '', /^text\/plain; version=0\.0\.4/);
  return parsed(await res.text());
}

test('the metrics listener serves the ledger, the change log, the store, delayed views and the process', async () => {
  const m = await scrape();
  const head = s.server.ledger.position.id;
  const base = await logBase(s.server.services.store);
  assert.equal(m.value('oddsbase_changelog_head_id'), head);
  assert.equal(m.value('oddsbase_changelog_info', { epoch: s.server.ledger.position.epoch }), 1);
  assert.equal(m.value('oddsbase_changelog_oldest_id'), base + 1);
  // The catalog's rows written at the start (docs/feeds.md), then the two batches above.
  assert.equal(m.value('oddsbase_ledger_commits_total'), 3);
  assert.equal(m.value('oddsbase_ledger_rows_total'), head - base);
  assert.equal(m.families.find((f) => f.name === 'oddsbase_ledger_commit_duration_seconds')?.type, 'histogram');
  assert.equal(m.value('oddsbase_ledger_commit_duration_seconds_count'), 3);
  assert.equal(m.value('oddsbase_ledger_commit_duration_seconds_bucket', { le: '+Inf' }), 3);
  assert.equal(m.value('oddsbase_ledger_backlog_batches'), 0);
  assert.ok(m.value('oddsbase_store_disk_bytes') > 0);
  assert.equal(m.value('oddsbase_board_events'), 1);
  for (const delay of ['30', '60', '300']) {
    // Every change describes now, so each delayed view is behind by all of them.
    assert.equal(m.value('oddsbase_delayed_view_lag_changes', { delay_seconds: delay }), head - catalogHead);
  }
  assert.equal(m.value('oddsbase_delayed_view_entries'), head - catalogHead);
  assert.equal(m.value('oddsbase_delayed_view_forced_advances_total'), 0);
  assert.ok(m.value('process_resident_memory_bytes') > 0);
  assert.ok(m.value('nodejs_heap_size_used_bytes') > 0);
  assert.ok(m.has('nodejs_eventloop_lag_p99_seconds'));
});

test('requests are counted by route pattern, method and status, never by raw URL', async () => {
  assert.equal((await s.get(`/api/v2/events/${E}`)).status, 200);
  assert.equal((await s.get(`/api/v2/events/${'f'.repeat(32)}`)).status, 404);
  assert.equal((await s.get('/api/v2/sports')).status, 200);
  assert.equal((await s.get('/no/such/path?key=secret')).status, 404);
  const m = await scrape();
  const family = m.families.find((f) => f.name === 'oddsbase_http_request_duration_seconds');
  assert.equal(family?.type, 'histogram');
  const count = (labels: Record<string, string>) => m.value('oddsbase_http_request_duration_seconds_count', labels);
  assert.equal(count({ method: 'GET', route: '/api/v2/events/:eventID', status_code: '200' }), 1);
  assert.equal(count({ method: 'GET', route: '/api/v2/events/:eventID', status_code: '404' }), 1);
  assert.equal(count({ method: 'GET', route: '/api/v2/sports', status_code: '200' }), 1);
  assert.equal(count({ method: 'GET', route: 'unmatched', status_code: '404' }), 1);
  for (const sample of family!.samples) {
    assert.ok(!sample.labels.route!.includes(E) && !sample.labels.route!.includes('?'), sample.labels.route);
  }
  // The buckets count the same requests, cumulatively.
  const events = { method: 'GET', route: '/api/v2/sports', status_code: '200' };
  assert.equal(m.value('oddsbase_http_request_duration_seconds_bucket', { ...events, le: '+Inf' }), 1);
});

test('refusals are counted by reason: the per-second ceiling and failed keys', async () => {
  const free = await s.newKey('free');
  const answers = await Promise.all(
    Array.from({ length: 4 }, () => s.get('/api/v2/markets', { 'X-Service-Key': free })),
  );
  const refused = answers.filter((a) => a.status === 429).length;
  assert.ok(refused >= 1, `Free allows one request a second: ${answers.map((a) => a.status).join(',')}`);
  // The first five failures from an address answer at once; later ones are held back and counted.
  for (let i = 0; i < 7; i++) {
    assert.equal((await s.get('/api/v2/markets', { 'X-Service-Key': 'ob_wrong' })).status, 401);
  }
  const m = await scrape();
  assert.equal(m.value('oddsbase_access_refusals_total', { reason: 'burst' }), refused);
  assert.equal(m.value('oddsbase_access_refusals_total', { reason: 'failed_key_throttle' }), 2);
});

test('/healthz and /readyz answer without a key, and are neither limited nor metered', async () => {
  for (const path of ['/healthz', '/readyz']) {
    const r = await s.get(path, {});
    assert.equal(r.status, 200, path);
    assert.equal(r.headers.get('x-datapoints-used'), null);
  }
  assert.deepEqual((await s.get('/healthz', {})).body, { status: 'ok' });
  assert.deepEqual((await s.get('/readyz', {})).body, {
    status: 'ready',
    role: 'all',
    store: 'ok',
    feed: 'none',
    history: 'complete',
  });
  // Free allows one request a second: probes with its key do not use it up, and count no points.
  const free = await s.newKey('free');
  for (let i = 0; i < 3; i++) assert.equal((await s.get('/readyz', { 'X-Service-Key': free })).status, 200);
  const first = await s.get(`/api/v2/sports/4/events/${today()}`, { 'X-Service-Key': free });
  assert.equal(first.status, 200);
  assert.equal(first.headers.get('x-datapoints-used'), '0');
});

test('/readyz is 503 while the store refuses commits, and ready again after one succeeds', async () => {
  const store = s.server.services.store;
  const commit = store.commit;
  store.commit = async () => {
    throw new Error('disk full');
  };
  try {
    await assert.rejects(
      s.server.ledger.apply(
        batch(new Date().toISOString(), [
          price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 150 }),
        ]),
      ),
      /disk full/,
    );
    const r = await s.get('/readyz', {});
    assert.equal(r.status, 503);
    assert.equal(r.body.status, 'not ready');
    assert.match(r.body.store, /the last commit failed/);
    assert.equal((await scrape()).value('oddsbase_ledger_commit_failures_total'), 1);
  } finally {
    store.commit = commit;
  }
  await s.server.ledger.apply(
    batch(new Date().toISOString(), [price(E, { market_id: 1, participant_id: 2002, affiliate_id: 19, price: 155 })]),
  );
  assert.equal((await s.get('/readyz', {})).status, 200);
});

test('without a token /metrics is not on the API port; the metrics listener answers nothing else', async () => {
  assert.equal((await s.get('/metrics', {})).status, 404);
  const base = s.server.metricsUrl!.replace(/\/metrics$/, '');
  assert.equal((await fetch(`${base}/`)).status, 404);
  assert.equal((await fetch(s.server.metricsUrl!, { method: 'POST' })).status, 405);
  assert.match(s.server.metricsUrl!, /^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
});

test('with a token, /metrics on the API port and on the listener needs it', async (t) => {
  const dir = mkdtempSync(join(tmpdir(), 'oddsbase-metrics-'));
  const token = 'a-long-enough-admin-token';
  const services = await compose(
    resolveServeConfig({ dataDir: dir, simulator: false, logLevel: 'silent', metricsToken: token }, {}),
  );
  t.after(async () => {
    await services.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const get = (authorization?: string) =>
    services.app.inject({ method: 'GET', url: '/metrics', headers: authorization ? { authorization } : {} });
  assert.equal((await get()).statusCode, 401);
  assert.equal((await get('Bearer not-the-token-at-all')).statusCode, 401);
  const ok = await get(`Bearer ${token}`);
  assert.equal(ok.statusCode, 200);
  // An empty log's head is its base: the id its first change will follow.
  const base = await logBase(services.store);
  assert.ok(base > 0);
  assert.equal((await parsed(ok.body)).value('oddsbase_changelog_head_id'), base);
  assert.equal(ok.headers['x-datapoints-used'], undefined);

  const listener = await listenMetrics(services.metrics, { host: '127.0.0.1', port: 0, token });
  t.after(() => listener.close());
  assert.equal((await fetch(listener.url)).status, 401);
  const scraped = await fetch(listener.url, { headers: { authorization: `Bearer ${token}` } });
  assert.equal(scraped.status, 200);
  assert.equal((await parsed(await scraped.text())).value('oddsbase_changelog_head_id'), base);
});

test('the configuration refuses metrics beyond loopback without a token, and a short token', () => {
  assert.throws(() => resolveServeConfig({ metricsHost: '0.0.0.0' }, {}), ConfigError);
  assert.throws(() => resolveServeConfig({}, { METRICS_HOST: '10.0.0.5' }), /METRICS_TOKEN/);
  assert.throws(() => resolveServeConfig({ metricsToken: 'short' }, {}), /at least 16/);
  const open = resolveServeConfig({ metricsHost: '0.0.0.0' }, { METRICS_TOKEN: 'x'.repeat(16) });
  assert.deepEqual(open.metrics, { host: '0.0.0.0', port: undefined, token: 'x'.repeat(16) });
  // Off unless asked: two servers on one host, or another program on 9464, never clash over it.
  assert.deepEqual(resolveServeConfig({}, {}).metrics, { host: '127.0.0.1', port: undefined });
  assert.deepEqual(resolveServeConfig({ metricsPort: '9464' }, {}).metrics, { host: '127.0.0.1', port: 9464 });
});

// Last in this file: past the ceiling this address may present only keys that passed before.
test('failed key checks past the ceiling are counted as refusals of their own', async () => {
  const throttled = (await scrape()).value('oddsbase_access_refusals_total', { reason: 'failed_key_throttle' });
  // In flight together, so their held-back answers overlap: the window's failures pass the ceiling.
  const statuses = await Promise.all(
    Array.from(
      { length: 40 },
      async () => (await s.get('/api/v2/markets', { 'X-Service-Key': 'ob_still_wrong' })).status,
    ),
  );
  const refused = statuses.filter((c) => c === 429).length;
  assert.ok(refused > 0 && statuses.every((c) => c === 401 || c === 429), statuses.join(','));
  const m = await scrape();
  assert.equal(m.value('oddsbase_access_refusals_total', { reason: 'failed_key_ceiling' }), refused);
  assert.ok(m.value('oddsbase_access_refusals_total', { reason: 'failed_key_throttle' }) > throttled);
});
