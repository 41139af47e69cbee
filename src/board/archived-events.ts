import { rowSource, type Store } from '../store/store.ts';
import { loadBoard } from './apply.ts';
import { Board } from './board.ts';
import type { EventState } from './event-state.ts';

/** Archived events read back at most at once; each is an event's final markets and box. */
const DEFAULT_KEPT = 32;

/**
 * Events that left the board (archived by retention), rebuilt from the store for the routes that
 * name an event by id: its header and score, its markets as they were left, its plays count and box.
 * They no longer change, so a rebuilt event is kept until newer reads push it out (a few at most).
 */
export class ArchivedEvents {
  private readonly kept = new Map<string, EventState>();

  constructor(
    private readonly store: Pick<Store, 'readArchivedEvent'>,
    private readonly max = DEFAULT_KEPT,
  ) {}

  async get(eventId: string): Promise<EventState | undefined> {
    const hit = this.kept.get(eventId);
    if (hit) {
      // Least recently read out first.
      this.kept.delete(eventId);
      this.kept.set(eventId, hit);
      return hit;
    }
    const a = await this.store.readArchivedEvent(eventId);
    if (!a) return undefined;
    const board = new Board();
    await loadBoard(board, {
      epoch: '',
      events: [a.event],
      markets: a.markets,
      latestPrices: rowSource(a.latestPrices),
      maxPriceId: 0,
      futures: [],
      catalog: [],
      seasonRecords: [],
      headId: 0,
      headCommittedMs: 0,
      playCounts: a.playCounts,
      statRows: rowSource(a.statRows),
      archived: { events: [], seasonTotals: [] },
    });
    const state = board.getEvent(eventId);
    if (!state) return undefined;
    this.kept.set(eventId, state);
    if (this.kept.size > this.max) this.kept.delete(this.kept.keys().next().value!);
    return state;
  }
}
