import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { AFFILIATES } from '../../src/catalog/affiliates.ts';
import type { PriceUpdate } from '../../src/ledger/updates.ts';
import { ARTIFACTS, type Chromium, ensurePageBuilt, launchChromium } from '../helpers/chromium.ts';
import { batch, nbaEvent, price, today } from '../helpers/fixtures.ts';
import { startTestServer, type TestServer } from '../helpers/server.ts';
import { startTcpRelay } from '../helpers/tcp-relay.ts';

/*
 * The odds screen in Debian's chromium, against real servers on loopback: one whose day the test
 * writes through the ledger (50 events, every one of the 14 books), and one whose simulator plays
 * tennis, which is on around the clock. The page signs in with the demo session, as a visitor of
 * a loopback server does.
 */

const EVENTS = 50;
const BOOKS = AFFILIATES.map((a) => a.affiliate_id);
const OFF_BOARD = 0.0001;
const TENNIS = 38;
const eventId = (i: number) => (0xe000 + i).toString(16).padStart(32, '0');

let day: TestServer;
let sim: TestServer;
let chromium: Chromium;
const at = () => new Date().toISOString();
/** A time two minutes ago: what the day is written at, so that delayed plans (Pro: 30 s) see it at once. */
const past = () => new Date(Date.now() - 120_000).toISOString();

/** Main-line moneyline, spread and total of every book on one event. */
function eventPrices(id: string): PriceUpdate[] {
  return BOOKS.flatMap((aff, k) => [
    price(id, { market_id: 1, participant_id: 2002, affiliate_id: aff, price: 120 + k, is_main_line: true }),
    price(id, { market_id: 1, participant_id: 2014, affiliate_id: aff, price: -140 - k, is_main_line: true }),
    price(id, { market_id: 2, participant_id: 2002, affiliate_id: aff, line: '3.5', price: -110, is_main_line: true }),
    price(id, { market_id: 2, participant_id: 2014, affiliate_id: aff, line: '-3.5', price: -110, is_main_line: true }),
    price(id, { market_id: 3, participant_id: 0, affiliate_id: aff, line: '221.5', price: -108, is_main_line: true }),
    price(id, { market_id: 3, participant_id: 1, affiliate_id: aff, line: '221.5', price: -112, is_main_line: true }),
  ]);
}

before(async () => {
  ensurePageBuilt();
  [day, sim, chromium] = await Promise.all([
    startTestServer(),
    startTestServer({ simulator: true, sports: [TENNIS] }),
    launchChromium(),
  ]);
  const ids = Array.from({ length: EVENTS }, (_, i) => eventId(i));
  await day.server.ledger.apply(
    batch(
      past(),
      ids.flatMap((id, i) => [
        {
          kind: 'event' as const,
          event: {
            ...nbaEvent(id, today(), i % 24),
            rotation_number_away: 501 + 2 * i,
            rotation_number_home: 502 + 2 * i,
          },
        },
        ...eventPrices(id),
      ]),
    ),
  );
  // The first book takes the first event's home moneyline off the board.
  await day.server.ledger.apply(
    batch(past(), [price(ids[0]!, { market_id: 1, participant_id: 2014, affiliate_id: BOOKS[0]!, price: OFF_BOARD })]),
  );
});

after(async () => {
  await Promise.all([chromium?.close(), day?.close(), sim?.close()]);
});

/** A cell of the day screen: event, logical market, participant, book. */
const cell = (page: Page, id: string, market: number, participant: number, aff: number) =>
  page.locator(`td[data-k="${id}|${market}|${participant}|${aff}"]`);

const dayUrl = (base: string, sport: number) => `${base}/#/sport/${sport}/${today()}`;

test('the page loads today’s events with every book’s prices, OFF for an off-board price', async (t) => {
  const ctx = await chromium.context();
  const page = await ctx.newPage();
  await page.goto(dayUrl(day.url, 4));
  // Every table drawn: the moment it is, in the page's clock (the first screenful comes before).
  const allDrawn = (await (
    await page.waitForFunction(
      (n) => document.querySelectorAll('td[data-k] .price').length >= n && performance.now(),
      EVENTS * 6 * BOOKS.length,
    )
  ).jsonValue()) as number;
  const [read, drawn] = await page.evaluate(() =>
    ['odds-snapshot-read', 'odds-rendered'].map((m) => performance.getEntriesByName(m)[0]!.startTime),
  );
  t.diagnostic(
    `first render of ${EVENTS} events x ${BOOKS.length} books: first screenful ${drawn!.toFixed(0)} ms after ` +
      `navigation start (snapshot read at ${read!.toFixed(0)} ms, drawn in ${(drawn! - read!).toFixed(0)} ms), ` +
      `all ${EVENTS} tables by ${allDrawn.toFixed(0)} ms`,
  );

  assert.equal(await page.locator('article.event').count(), EVENTS);
  const heads = await page.locator('article.event').first().locator('thead th').allTextContents();
  assert.deepEqual(heads, ['Side', ...AFFILIATES.map((a) => a.affiliate_name)]);
  const first = eventId(0);
  const off = cell(page, first, 1, 2014, BOOKS[0]!);
  assert.equal(await off.locator('.price').textContent(), 'OFF');
  assert.match((await off.getAttribute('class')) ?? '', /\boff\b/);
  assert.equal(await cell(page, first, 1, 2002, BOOKS[0]!).locator('.price').textContent(), '+120');
  assert.equal(await cell(page, first, 2, 2002, BOOKS[3]!).textContent(), '+3.5 -110');
  assert.equal(await cell(page, first, 3, 1, BOOKS[3]!).textContent(), 'u221.5 -112');
  // The away moneyline pays most at the last book (+133): the best price of that side.
  assert.deepEqual(await page.locator(`td.best[data-k^="${first}|1|2002|"]`).count(), 1);
  assert.match((await cell(page, first, 1, 2002, BOOKS.at(-1)!).getAttribute('class')) ?? '', /\bbest\b/);
  assert.equal(await page.locator('#connection').getAttribute('data-state'), 'connected');
  // The odds formats, through the client's helpers.
  await page.selectOption('select[name="format"]', 'decimal');
  assert.equal(await cell(page, first, 1, 2002, BOOKS[0]!).locator('.price').textContent(), '2.20');
  assert.equal(await off.locator('.price').textContent(), 'OFF');
  await page.selectOption('select[name="format"]', 'probability');
  assert.equal(await cell(page, first, 1, 2002, BOOKS[0]!).locator('.price').textContent(), '45.5%');
  await page.selectOption('select[name="format"]', 'american');
  await ctx.close();
});

test('stream prices reach the screen in place: moves, OFF and closed lines; latency measured', async (t) => {
  const ctx = await chromium.context();
  const page = await ctx.newPage();
  await page.goto(dayUrl(day.url, 4));
  await page.waitForSelector('td[data-k] .price');
  await page.waitForSelector('#connection[data-state="connected"]');
  // The subscription is acknowledged before the first change is written (the indicator shows the open socket).
  await page.waitForTimeout(300);
  await page.evaluate(() => {
    const seen: { k: string; updated: string; at: number }[] = [];
    (window as unknown as { seen: typeof seen }).seen = seen;
    new MutationObserver((records) => {
      const now = Date.now();
      for (const r of records) {
        const td = r.target as HTMLElement;
        if (r.attributeName === 'data-updated' && td.dataset.k)
          seen.push({ k: td.dataset.k, updated: td.dataset.updated!, at: now });
      }
    }).observe(document.body, { subtree: true, attributes: true, attributeFilter: ['data-updated'] });
  });
  const id = eventId(1);
  const latencies: number[] = [];
  for (let i = 1; i <= 20; i++) {
    const committed = at();
    await day.server.ledger.apply(
      batch(committed, [
        price(id, { market_id: 1, participant_id: 2002, affiliate_id: BOOKS[2]!, price: 150 + i, is_main_line: true }),
      ]),
    );
    const shown = await page.waitForFunction(
      ([k, u]) =>
        (window as unknown as { seen: { k: string; updated: string; at: number }[] }).seen.find(
          (s) => s.k === k && s.updated === u,
        ),
      [`${id}|1|2002|${BOOKS[2]}`, committed] as const,
    );
    const s = (await shown.jsonValue()) as { at: number };
    latencies.push(s.at - Date.parse(committed));
    assert.equal(await cell(page, id, 1, 2002, BOOKS[2]!).locator('.price').textContent(), `+${150 + i}`);
  }
  latencies.sort((a, b) => a - b);
  const pct = (p: number) => latencies[Math.min(latencies.length - 1, Math.floor(p * latencies.length))]!;
  t.diagnostic(
    `stream price to screen (ms, ${latencies.length} changes): median ${pct(0.5)}, p95 ${pct(0.95)}, max ${latencies.at(-1)}`,
  );
  // A rise in price is a move up for the bettor, shown by a highlight with its direction.
  assert.match((await cell(page, id, 1, 2002, BOOKS[2]!).getAttribute('class')) ?? '', /\bmoved-up\b/);
  await day.server.ledger.apply(
    batch(at(), [
      price(id, { market_id: 2, participant_id: 2014, affiliate_id: BOOKS[4]!, line: '-3.5', price: OFF_BOARD }),
      price(id, { market_id: 3, participant_id: 0, affiliate_id: BOOKS[5]!, line: '221.5', price: -108, closed: true }),
    ]),
  );
  await page.waitForFunction(
    (k) => document.querySelector(`td[data-k="${k}"] .price`)?.textContent === 'OFF',
    `${id}|2|2014|${BOOKS[4]}`,
  );
  const closed = cell(page, id, 3, 0, BOOKS[5]!);
  await page.waitForFunction(
    (k) => document.querySelector(`td[data-k="${k}"]`)?.classList.contains('closed'),
    `${id}|3|0|${BOOKS[5]}`,
  );
  assert.match((await closed.textContent()) ?? '', /closed/);
  await ctx.close();
});

test('a price changes on screen while the simulator runs', { timeout: 120_000 }, async () => {
  const ctx = await chromium.context();
  const page = await ctx.newPage();
  await page.goto(dayUrl(sim.url, TENNIS));
  await page.waitForSelector('td[data-k] .price');
  const moved = await page.waitForSelector('td.moved-up, td.moved-down', { timeout: 90_000 });
  assert.match((await moved.textContent()) ?? '', /[▲▼]/);
  await page.screenshot({ path: join(ARTIFACTS, 'odds-screen-desktop.png') });
  await ctx.close();
});

test(
  'the event page: a chart line per book, openers and closing, box score, plays, game state',
  { timeout: 120_000 },
  async () => {
    const { body } = await sim.get(`/api/v2/sports/${TENNIS}/events/${today()}?market_ids=1&main_line=true`);
    // A match in play shows its live game state; else one that has ended.
    const events = (body.events as any[]).filter((e) => e.markets.length > 0);
    const playing = events.find((e) => e.score?.event_status === 'STATUS_IN_PROGRESS');
    const started = playing ?? events.find((e) => e.score && e.score.event_status !== 'STATUS_SCHEDULED');
    assert.ok(started, 'a match of today has started');
    const away = started.teams[0].team_id as number;
    // The books charting the away side's main moneyline, prematch (1) and in play (41).
    const chartBooks = async () => {
      const books = new Set<string>();
      for (const market of [1, 41]) {
        const chart = await sim.get(
          `/api/v2/events/${started.event_id}/markets/${market}/history?participant_id=${away}&main_line=true`,
        );
        for (const k of Object.keys(chart.body.series)) books.add(k);
      }
      return books;
    };
    const before = await chartBooks();
    const ctx = await chromium.context();
    const page = await ctx.newPage();
    await page.goto(`${sim.url}/#/event/${started.event_id}`);
    await page.waitForSelector('svg.line-chart');
    const paths = page.locator('svg.line-chart path.series');
    const drawn = await paths.evaluateAll((els) => els.map((e) => e.getAttribute('data-affiliate')!));
    const since = await chartBooks();
    // One line per book: each book once, every book that charted before the page read, none that had not by after.
    assert.equal(new Set(drawn).size, drawn.length);
    for (const b of before) assert.ok(drawn.includes(b), `book ${b} has its line`);
    for (const b of drawn) assert.ok(since.has(b), `book ${b} charts this side`);
    for (const d of await paths.evaluateAll((els) => els.map((e) => e.getAttribute('d') ?? ''))) assert.match(d, /^M/);
    assert.equal(await page.locator('#legend li').count(), drawn.length);
    await page.waitForSelector('#lines table.marks');
    assert.ok((await page.locator('#lines table.marks tbody tr').count()) > 0);
    await page.waitForSelector('#box table.box');
    await page.waitForSelector('#plays ol.plays li');
    assert.doesNotMatch((await page.locator('#state').textContent()) ?? '', /not in your plan/i);
    if (playing) await page.waitForSelector('#state dl.game-state dt');
    await page.screenshot({ path: join(ARTIFACTS, 'event-page-desktop.png'), fullPage: true });
    await ctx.close();
  },
);

test('the connection indicator shows a dropped and a restored stream', { timeout: 60_000 }, async () => {
  const relay = await startTcpRelay(day.url);
  const ctx = await chromium.context();
  try {
    const page = await ctx.newPage();
    await page.goto(dayUrl(relay.url, 4));
    await page.waitForSelector('#connection[data-state="connected"]');
    relay.drop();
    await page.waitForSelector('#connection[data-state="reconnecting"]');
    assert.match((await page.locator('#connection').textContent()) ?? '', /Reconnecting/);
    relay.restore();
    await page.waitForSelector('#connection[data-state="connected"]', { timeout: 40_000 });
    assert.equal(await page.locator('#connection').textContent(), 'Live');
    // The resumed subscription carries changes again.
    const id = eventId(2);
    await day.server.ledger.apply(
      batch(at(), [
        price(id, { market_id: 1, participant_id: 2014, affiliate_id: BOOKS[1]!, price: -199, is_main_line: true }),
      ]),
    );
    await page.waitForFunction(
      (k) => document.querySelector(`td[data-k="${k}"] .price`)?.textContent === '-199',
      `${id}|1|2014|${BOOKS[1]}`,
    );
  } finally {
    await ctx.close();
    await relay.close();
  }
});

const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ content: axeSource });
  const result = await page.evaluate(async () => {
    const axe = (window as unknown as { axe: { run(ctx: Document): Promise<any> } }).axe;
    return axe.run(document);
  });
  return (result.violations as any[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target})`);
}

test(
  'axe-core finds no serious violation, on the day screen and the event page; phone width',
  { timeout: 120_000 },
  async () => {
    // CSP allows no inline script: this context lets the test inject axe-core.
    const ctx = await chromium.context({ bypassCSP: true });
    const page = await ctx.newPage();
    await page.goto(dayUrl(sim.url, TENNIS));
    await page.waitForSelector('td[data-k] .price');
    assert.deepEqual(await seriousViolations(page), []);
    const first = await page.locator('article.event h2 a').first().getAttribute('href');
    await page.goto(`${sim.url}/${first}`);
    await page.waitForSelector('svg.line-chart, #chart p');
    await page.waitForSelector('#box table, #box p');
    assert.deepEqual(await seriousViolations(page), []);
    await ctx.close();

    const phone = await chromium.context({ width: 390, height: 844 });
    const p = await phone.newPage();
    await p.goto(dayUrl(sim.url, TENNIS));
    await p.waitForSelector('td[data-k] .price');
    // Nothing wider than the screen but the tables' own scrolling regions.
    assert.ok((await p.evaluate(() => document.documentElement.scrollWidth)) <= 390);
    await p.screenshot({ path: join(ARTIFACTS, 'odds-screen-phone.png') });
    await p.goto(`${sim.url}/${first}`);
    await p.waitForSelector('svg.line-chart, #chart p');
    assert.ok((await p.evaluate(() => document.documentElement.scrollWidth)) <= 390);
    await p.screenshot({ path: join(ARTIFACTS, 'event-page-phone.png'), fullPage: true });
    await phone.close();
  },
);

test(
  'a plan without streams or live data: prices from REST, “not in your plan” where it lacks them',
  { timeout: 120_000 },
  async () => {
    const key = await day.newKey('pro');
    const ctx = await chromium.context();
    // A key typed once: exchanged for the session cookie of this browser context.
    const signIn = await ctx.request.post(`${day.url}/session`, { data: { key } });
    assert.equal(signIn.status(), 200);
    const page = await ctx.newPage();
    await page.goto(dayUrl(day.url, 4));
    await page.waitForSelector('td[data-k] .price');
    await page.waitForSelector('#connection[data-state="unavailable"]');
    assert.equal(await page.locator('#connection').textContent(), 'Live updates not in your plan');
    // Prices still move, through the markets delta: a change old enough for the plan's 30 s delay.
    const id = eventId(3);
    await day.server.ledger.apply(
      batch(past(), [
        price(id, { market_id: 1, participant_id: 2002, affiliate_id: BOOKS[6]!, price: 444, is_main_line: true }),
      ]),
    );
    await page.waitForFunction(
      (k) => document.querySelector(`td[data-k="${k}"] .price`)?.textContent === '+444',
      `${id}|1|2002|${BOOKS[6]}`,
      { timeout: 20_000 },
    );
    await page.goto(`${day.url}/#/event/${eventId(0)}`);
    await page.waitForSelector('#plays .plan');
    assert.equal(await page.locator('#plays').textContent(), 'Not in your plan.');
    assert.equal(await page.locator('#state').textContent(), 'Not in your plan.');
    assert.equal(await page.locator('.error').count(), 0);
    await ctx.close();
  },
);
