import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import type { PriceState } from '../../src/board/event-state.ts';
import {
  type MakePriceState,
  plainPriceState,
  replaceWhole,
  replaceWholeFutures,
  rewriteFuturesInPlace,
  rewriteInPlace,
  shapedPriceState,
} from '../../src/perf/price-state.ts';
import { PLAIN } from '../../src/perf/switch.ts';
import { boardAnswers } from '../helpers/board-answers.ts';

const base = {
  id: 7,
  affiliate_id: 25,
  price: -110,
  is_main_line: true,
  updated_at: '2026-11-28T02:00:00.000Z',
  closed_at: '',
  price_delta: 0.0125,
  change_id: 99,
};

for (const [name, priceState] of [
  ['the shaped literal', shapedPriceState],
  ['the plain twin', plainPriceState],
] as [string, MakePriceState][]) {
  test(`${name}: a price state holds exactly the optional fields it was given, none as an undefined property`, () => {
    const make = (liquidity?: number, source?: string, movedFrom?: string) =>
      priceState(7, 25, -110, true, base.updated_at, '', 0.0125, 99, liquidity, source, movedFrom);
    assert.deepEqual(make(), base);
    assert.deepEqual(make(5000), { ...base, liquidity_usd: 5000 });
    assert.deepEqual(make(undefined, 'tok:1:nba'), { ...base, source_id: 'tok:1:nba' });
    assert.deepEqual(make(5000, 'tok:1:nba'), { ...base, liquidity_usd: 5000, source_id: 'tok:1:nba' });
    assert.deepEqual(make(undefined, undefined, '-3.5'), { ...base, moved_from: '-3.5' });
    assert.deepEqual(make(0, undefined, '-3.5'), { ...base, liquidity_usd: 0, moved_from: '-3.5' });
    for (const s of [make(), make(1), make(undefined, 'x'), make(1, 'x'), make(undefined, undefined, '1')]) {
      for (const [k, v] of Object.entries(s)) assert.notEqual(v, undefined, `${k} is present only with a value`);
    }
  });
}

test('rewritten in place or replaced whole, a price change leaves the same values and the same before', () => {
  const current: PriceState = { ...base, liquidity_usd: 10, moved_from: '-3.5' };
  const next: PriceState = { ...base, price: -120, change_id: 100, source_id: 'tok:2' };
  for (const replace of [rewriteInPlace, replaceWhole]) {
    const was = { ...current };
    const prices = new Map([[25, { ...current }]]);
    const { price, before } = replace(prices, prices.get(25)!, { ...next });
    assert.deepEqual(price, next);
    assert.deepEqual(prices.get(25), next);
    assert.strictEqual(prices.get(25), price, 'the line holds the state returned');
    assert.deepEqual(before, was);
  }
});

test('a futures price rewritten in place or replaced whole: the same values on the board', () => {
  const current = {
    affiliate_id: 19,
    price: 450,
    price_delta: 0,
    updated_at: base.updated_at,
    closed_at: '',
    change_id: 5,
  };
  const next = { ...current, price: 400, price_delta: -50, updated_at: '2026-11-29T02:00:00.000Z', change_id: 9 };
  for (const replace of [rewriteFuturesInPlace, replaceWholeFutures]) {
    const prices = new Map([[19, { ...current }]]);
    const now = replace(prices, prices.get(19)!, { ...next });
    assert.deepEqual(now, next);
    assert.strictEqual(prices.get(19), now);
  }
});

/** The board's answers under the other setting of the switch, from a process of their own. */
async function otherAnswers(): Promise<Record<string, string>> {
  const ext = import.meta.url.endsWith('.ts') ? '.ts' : '.js';
  const script = fileURLToPath(new URL(`../helpers/board-answers${ext}`, import.meta.url));
  const flags = process.execArgv.filter((a) => !a.startsWith('--test'));
  const { stdout } = await promisify(execFile)(process.execPath, [...flags, script], {
    env: { ...process.env, ODDSBASE_PLAIN: PLAIN ? '0' : '1' },
    maxBuffer: 1 << 20,
  });
  return JSON.parse(stdout) as Record<string, string>;
}

test('over a simulated day, the shaped literals rewritten in place and the plain twin give the same board answers', async () => {
  const [here, there] = await Promise.all([boardAnswers(), otherAnswers()]);
  assert.ok(Number(here.rows) > 10_000, `${here.rows} change rows`);
  assert.notEqual(here['delay 300: events'], here['live: events'], 'the delayed views undo changes');
  assert.ok(Number(here['futures prices']) > 10, `${here['futures prices']} futures prices`);
  assert.deepEqual(here, there);
});
