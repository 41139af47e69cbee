import assert from 'node:assert/strict';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import type { Page } from 'playwright-core';
import { DEMO_KEY_CLEAR_META } from '../../src/store/keys.ts';
import { ARTIFACTS, type Chromium, ensurePageBuilt, launchChromium } from '../helpers/chromium.ts';
import { startTestServer } from '../helpers/server.ts';

/*
 * The page and the server's side of it, in Debian's chromium: how the page is served and signs in
 * (the demo session on a loopback server, a key typed once elsewhere), that it holds no key and
 * loads nothing from another host.
 */

let chromium: Chromium;

before(async () => {
  ensurePageBuilt();
  chromium = await launchChromium();
});

after(() => chromium?.close());

/** Every URL the page asks for (HTTP and WebSocket), and every uncaught error in it. */
function watch(page: Page): { urls: string[]; errors: Error[] } {
  const seen = { urls: [] as string[], errors: [] as Error[] };
  page.on('request', (r) => seen.urls.push(r.url()));
  page.on('websocket', (ws) => seen.urls.push(ws.url()));
  page.on('pageerror', (err) => seen.errors.push(err));
  return seen;
}

const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

async function seriousViolations(page: Page): Promise<string[]> {
  await page.addScriptTag({ path: axePath });
  const result = await page.evaluate(() =>
    (window as unknown as { axe: { run(ctx: Document): Promise<any> } }).axe.run(document),
  );
  return (result.violations as any[])
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes, e.g. ${v.nodes[0]?.target})`);
}

test('on a loopback server the page signs in with the demo session, holds no key, asks no other host', async () => {
  const s = await startTestServer({ simulator: true, sports: [4] });
  const ctx = await chromium.context();
  try {
    const page = await ctx.newPage();
    const seen = watch(page);
    const res = await page.goto(s.url + '/');
    assert.equal(res?.status(), 200);
    assert.equal(res?.headers()['cache-control'], 'no-cache');
    await page.waitForSelector('#connection[data-state="connected"]', { timeout: 30_000 });
    // The page's own files: hashed, cached for good.
    const asset = seen.urls.find((u) => new URL(u).pathname.startsWith('/assets/'));
    assert.ok(asset, 'the page loads its build from /assets/');
    const assetRes = await fetch(asset);
    assert.equal(assetRes.headers.get('cache-control'), 'public, max-age=31536000, immutable');

    const cookie = (await ctx.cookies()).find((c) => c.name === 'oddsbase_session');
    assert.ok(cookie, 'the demo session cookie is set');
    assert.equal(cookie.httpOnly, true);
    assert.equal(cookie.sameSite, 'Strict');
    assert.equal(await page.evaluate(() => document.cookie.includes('oddsbase_session')), false);

    const demoKey = await s.server.services.store.getMeta(DEMO_KEY_CLEAR_META);
    assert.ok(demoKey);
    const held = await page.evaluate(() =>
      [document.documentElement.outerHTML, JSON.stringify(localStorage), JSON.stringify(sessionStorage)].join('\n'),
    );
    assert.ok(!held.includes(demoKey), 'the demo key is nowhere in the page or its storage');
    assert.ok(!seen.urls.some((u) => u.includes(demoKey)), 'nor in any URL it asked for');

    const own = new URL(s.url).host;
    const foreign = seen.urls.filter((u) => !u.startsWith('data:') && new URL(u).host !== own);
    assert.deepEqual(foreign, [], 'no request to another host');
    assert.deepEqual(
      seen.errors.map((e) => e.message),
      [],
    );
  } finally {
    await ctx.close();
    await s.close();
  }
});

test('beyond loopback the page asks for a key once and works by its session', async () => {
  const s = await startTestServer({ host: '0.0.0.0' });
  const key = await s.newKey('ultra');
  const ctx = await chromium.context({ width: 390, height: 844, bypassCSP: true });
  try {
    const page = await ctx.newPage();
    const seen = watch(page);
    await page.goto(s.url + '/');
    await page.waitForSelector('form.sign-in input[name="key"]');
    assert.deepEqual(await seriousViolations(page), []);
    await page.screenshot({ path: join(ARTIFACTS, 'sign-in-phone.png') });

    await page.fill('input[name="key"]', 'ob_not_a_key');
    await page.click('form.sign-in button[type="submit"]');
    await page.waitForSelector('form.sign-in .error:not(:empty)');
    assert.equal((await ctx.cookies()).length, 0);

    await page.fill('input[name="key"]', key);
    await page.click('form.sign-in button[type="submit"]');
    await page.waitForSelector('#connection[data-state="connected"]', { timeout: 30_000 });
    const cookie = (await ctx.cookies()).find((c) => c.name === 'oddsbase_session');
    assert.equal(cookie?.httpOnly, true);
    const held = await page.evaluate(() =>
      [document.documentElement.outerHTML, JSON.stringify(localStorage), JSON.stringify(sessionStorage)].join('\n'),
    );
    assert.ok(!held.includes(key), 'the key typed once is not kept by the page');
    assert.ok(!seen.urls.some((u) => u.includes(key)), 'nor sent in any URL');
    // A reload keeps the session: the page does not ask again.
    await page.reload();
    await page.waitForSelector('#connection[data-state="connected"]', { timeout: 30_000 });
    assert.equal(await page.locator('form.sign-in').count(), 0);
    assert.deepEqual(
      seen.errors.map((e) => e.message),
      [],
    );
  } finally {
    await ctx.close();
    await s.close();
  }
});
