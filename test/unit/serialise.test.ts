import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { LineState, MarketState, ParticipantState } from '../../src/board/event-state.ts';
import type { PriceDetail } from '../../src/changelog/change.ts';
import { PriceDetailSchema } from '../../src/changelog/price-detail-schema.ts';
import { marketName } from '../../src/catalog/markets.ts';
import type { ChangeType } from '../../src/domain/types.ts';
import fastJson from 'fast-json-stringify';
import { DeltaRowSchema } from '../../src/domain/delta-row-schema.ts';
import { DeltaRowWriter } from '../../src/perf/delta-row-text.ts';

/** The oracle: the Delta row serialised whole by the schema's compiled serialiser. */
const serialiseDeltaRow = fastJson(DeltaRowSchema);

const market = (marketId: number): MarketState => ({
  id: 7,
  market_id: marketId,
  period_id: 0,
  participants: new Map(),
});
const participant = (name: string): ParticipantState => ({
  id: 2002,
  type: 'TYPE_TEAM',
  name,
  lines: new Map(),
  mainLines: new Map(),
});
const line = (value: string): LineState => ({ id: 'f'.repeat(32), value, prices: new Map() });

interface Case {
  event: { event_id: string; sport_id: number };
  market: MarketState;
  participant: ParticipantState;
  line: LineState;
  price: number;
  previous?: number;
  changeType: ChangeType;
  main: boolean;
  closedAt: string;
  at: string;
}

test('the Delta row writer writes exactly what the compiled serialiser writes', () => {
  const at = '2026-11-23T10:00:00.000Z';
  const spread = { market: market(2), participant: participant('Los "Angeles"\\'), line: line('-3.5') };
  const e1 = { event_id: 'e1', sport_id: 4 };
  const cases: Case[] = [
    { event: e1, ...spread, price: -110, changeType: 'new', main: true, closedAt: '', at },
    {
      event: e1,
      ...spread,
      price: -115,
      previous: -110,
      changeType: 'price_change',
      main: true,
      closedAt: '',
      at,
    },
    // The same event under another sport, the same line again, closed in this batch.
    {
      event: { event_id: 'e1', sport_id: 2 },
      ...spread,
      price: 0.0001,
      previous: -115,
      changeType: 'line_change',
      main: false,
      closedAt: at,
      at,
    },
    {
      event: { event_id: 'e"\\ü\u0001', sport_id: 4 },
      market: market(999),
      participant: participant('Über\n\ud800'),
      line: line(''),
      price: 1e-7,
      previous: 3.25,
      changeType: 'price_change',
      main: false,
      closedAt: '2026-11-22T09:00:00.000Z',
      at: '2026-11-23T10:05:00.000Z',
    },
    {
      event: e1,
      market: market(1),
      participant: participant(''),
      line: line('220.5'),
      price: 150,
      changeType: 'new',
      main: false,
      closedAt: '',
      at,
    },
  ];
  const writer = new DeltaRowWriter();
  for (const [i, c] of cases.entries()) {
    const expected = serialiseDeltaRow({
      id: 1000 + i,
      event_id: c.event.event_id,
      sport_id: c.event.sport_id,
      affiliate_id: 19,
      market_id: c.market.market_id,
      market_name: marketName(c.market.market_id),
      participant_id: c.participant.id,
      participant_type: c.participant.type,
      participant_name: c.participant.name,
      line: c.line.value,
      price: String(c.price),
      previous_price: c.previous === undefined ? '' : String(c.previous),
      change_type: c.changeType,
      is_main_line: c.main,
      closed_at: c.closedAt,
      updated_at: c.at,
    });
    const written = writer.write(
      1000 + i,
      c.event,
      19,
      c.market,
      marketName(c.market.market_id),
      c.participant,
      c.line,
      c.price,
      c.previous,
      c.changeType,
      c.main,
      c.closedAt,
      c.at,
    );
    assert.equal(written, expected);
  }
});

/** The oracle of the detail writer: the PriceDetail schema's compiled serialiser. */
const serialisePriceDetail = fastJson(PriceDetailSchema);

test('the detail writer writes exactly what the compiled serialiser of PriceDetail writes', () => {
  const m = { ...market(2), id: 41, period_id: 3 };
  const cases: PriceDetail[] = [
    { price_id: 1, period_id: 3, market_instance_id: 41, line_id: 'f'.repeat(32), price_delta: 0 },
    {
      price_id: 2,
      period_id: 3,
      market_instance_id: 41,
      line_id: 'f'.repeat(32),
      price_delta: -3.5,
      quote_unchanged: true,
    },
    {
      price_id: 3,
      period_id: 3,
      market_instance_id: 41,
      line_id: 'f'.repeat(32),
      price_delta: 1e-7,
      liquidity_usd: 2500.75,
      source_id: 'src "1"\\\n\ud800ü',
      moved_from: '-3.5',
    },
    {
      price_id: 4,
      period_id: 3,
      market_instance_id: 41,
      line_id: 'f'.repeat(32),
      price_delta: 12,
      liquidity_usd: Infinity,
    },
    { price_id: 5, period_id: 3, market_instance_id: 41, line_id: 'f'.repeat(32), price_delta: -0, source_id: '' },
  ];
  const writer = new DeltaRowWriter();
  const l = line('x');
  for (const d of cases) {
    const written = writer.detail(
      d.price_id,
      m,
      l,
      d.price_delta,
      d.liquidity_usd,
      d.source_id,
      d.moved_from,
      d.quote_unchanged === true,
    );
    assert.equal(written, serialisePriceDetail({ ...d, line_id: l.id }));
  }
  assert.throws(() => serialisePriceDetail({ ...cases[0], price_delta: NaN }));
  assert.throws(() => writer.detail(1, m, l, NaN, undefined, undefined, undefined, false));
});
