import type { Board } from '../board/board.ts';
import { LedgerError } from './ledger-errors.ts';
import type { UpdateBatch } from './updates.ts';

/** Rejects a batch that names an unknown event before anything is planned. */
export function validateBatch(board: Board, batch: UpdateBatch): void {
  if (Number.isNaN(Date.parse(batch.at))) throw new LedgerError(`batch time is not ISO 8601: ${batch.at}`);
  const created = new Set<string>();
  // Feeds send an event's updates together: an id just checked needs no second look.
  let known = '';
  for (const u of batch.updates) {
    // Futures updates name boards, which the futures plan checks as it goes; catalog records name no event.
    if (
      u.kind === 'futures_board' ||
      u.kind === 'futures_price' ||
      u.kind === 'futures_settlement' ||
      u.kind === 'catalog' ||
      u.kind === 'season_stats'
    ) {
      continue;
    }
    if (u.kind === 'event') {
      if (board.archivedHeaders.has(u.event.event_id)) {
        throw new LedgerError(`event ${u.event.event_id} is over and archived: it takes no more updates`);
      }
      created.add(u.event.event_id);
    } else if (u.event_id !== known) {
      if (!created.has(u.event_id) && !board.events.has(u.event_id)) {
        throw new LedgerError(`update names an unknown event: ${u.event_id}`);
      }
      known = u.event_id;
    }
    if (u.kind === 'price' && !Number.isFinite(u.price)) {
      throw new LedgerError(`price is not a finite number for event ${u.event_id}`);
    }
  }
}
