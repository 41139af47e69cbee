import { Board } from '../../src/board/board.ts';
import { DelayedViews } from '../../src/board/delayed-views.ts';
import type { EventState } from '../../src/board/event-state.ts';
import { MemoryBus } from '../../src/bus/memory-bus.ts';
import { Simulator } from '../../src/feeds/simulator/index.ts';
import { Ledger } from '../../src/ledger/ledger.ts';
import type { EventFilter } from '../../src/projection/event-view.ts';
import { MemoryStore } from '../../src/store/memory/memory-store.ts';

/** An evening of a Monday: games of the day in play, the history window behind them. */
export const DAY_NOW = Date.parse('2026-11-23T21:30:00Z');

export interface SimulatedDay {
  board: Board;
  store: MemoryStore;
  /** The board as the Pro (30 s) and Free (300 s) delays see it. */
  views: DelayedViews;
  clock: { now: number };
  close(): void;
}

/**
 * A simulated day on a memory store: the history fill of `sports` with a fixed seed, then `liveSteps`
 * live steps 10 s apart (changes the delayed views still hide). A sport or two keeps it short
 * (hockey, 6, fills in well under a second and has box scores).
 */
export async function simulatedDay(
  opts: { sports?: number[]; seed?: number; liveSteps?: number } = {},
): Promise<SimulatedDay> {
  const clock = { now: DAY_NOW };
  const board = new Board();
  const store = new MemoryStore();
  const views = new DelayedViews(board, [30, 300], { now: () => clock.now, tickMs: 60_000 });
  const ledger = await Ledger.open(store, board, new MemoryBus(), {
    now: () => clock.now,
    observe: views.observe,
    replaySinceMs: clock.now - 300_000,
  });
  const sim = new Simulator({
    seed: opts.seed ?? 5,
    speed: 60,
    sink: ledger,
    state: board,
    now: () => clock.now,
    sportIds: opts.sports ?? [6],
  });
  await sim.backfill();
  for (let i = 0; i < (opts.liveSteps ?? 6); i++) {
    clock.now += 10_000;
    await sim.step(clock.now);
  }
  return { board, store, views, clock, close: () => views.close() };
}

/** Every market, book, period, participant and closed price of the event, with deltas and live state. */
export function wholeFilter(state: EventState): EventFilter {
  return {
    marketIds: new Set([...state.markets.values()].map((m) => m.market_id)),
    affiliateIds: null,
    periodIds: null,
    mainLine: false,
    participantIds: null,
    participantType: null,
    hideClosed: false,
    includePriceDelta: true,
    liveGameState: true,
  };
}
