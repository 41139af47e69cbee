import type { SeasonTotalsRecord } from '../store/store.ts';
import type { Board } from './board.ts';
import type { EventState } from './event-state.ts';
import type { ArchivedSeason } from './season-archive.ts';

/** Events about to leave the board (archived by retention), and what their leaving stores. */
export interface Leaving {
  /** The season totals that now count their games, the latest record of each key. */
  seasonTotals: SeasonTotalsRecord[];
  /** Takes them off the board, their games counted in its season totals. */
  apply(): void;
}

/**
 * The one way finished events leave a board: on the writer, which stores `seasonTotals` with the
 * archiving and then applies, and on every node that follows it, which applies when it reads that
 * the writer archived them. Both count the same games into the same totals.
 */
export function planLeaving(board: Board, leaving: readonly EventState[]): Leaving {
  const adding = new Map<string, ArchivedSeason>();
  const records: SeasonTotalsRecord[] = [];
  for (const ev of leaving) records.push(...board.seasons.totalsWith(ev.info, ev.game, adding));
  // Later records of a key carry the earlier games too: the last one of each key is stored.
  const latest = new Map(records.map((t) => [t.key, t]));
  return {
    seasonTotals: [...latest.values()],
    apply() {
      board.seasons.put(adding);
      for (const ev of leaving) board.evict(ev);
    },
  };
}

/** Forgets the headers of archived events scheduled before `beforeMs` (epoch ms). */
export function forgetArchivedHeaders(board: Board, beforeMs: number): void {
  for (const [id, info] of board.archivedHeaders) {
    if (Date.parse(info.event_date) < beforeMs) board.archivedHeaders.delete(id);
  }
}
