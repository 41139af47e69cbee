import { createHash } from 'node:crypto';
import type { BoardView } from '../../src/board/board-view.ts';
import { serializeEvent } from '../../src/projection/event-json.ts';
import { viewEvent } from '../../src/projection/event-view.ts';
import { simulatedDay, wholeFilter } from './simulated-day.ts';
import { SIMULATOR_CATALOG } from './simulator-catalog.ts';

/**
 * What a board answers over a simulated day, as digests: every event of the live board and of the
 * Pro and Free delayed views through the plain view and the schema's serialiser, every price as a
 * feed reads it back, and the change rows the ledger planned from it. Run as a script it prints them
 * as JSON: test/unit/price-state.test.ts runs it under the other setting of ODDSBASE_PLAIN.
 */
export async function boardAnswers(): Promise<Record<string, string>> {
  const day = await simulatedDay({ sports: [6], liveSteps: 8 });
  try {
    const out: Record<string, string> = {};
    const digest = (text: string) => createHash('sha256').update(text).digest('hex');
    const views: [string, BoardView][] = [
      ['live', day.board],
      ['delay 30', day.views.forDelay(30)],
      ['delay 300', day.views.forDelay(300)],
    ];
    for (const [name, view] of views) {
      const events = [...day.board.events.keys()].flatMap((id) => {
        const state = view.getEvent(id);
        return state ? [serializeEvent(viewEvent(state, wholeFilter(state), SIMULATOR_CATALOG).event)] : [];
      });
      out[`${name}: head`] = String(view.head);
      out[`${name}: events`] = digest(events.join('\n'));
    }
    const read: string[] = [];
    for (const ev of day.board.events.values())
      for (const m of ev.markets.values())
        for (const p of m.participants.values())
          for (const line of p.lines.values())
            for (const book of line.prices.keys()) {
              const key = {
                event_id: ev.info.event_id,
                market_id: m.market_id,
                period_id: m.period_id,
                participant_id: p.id,
                affiliate_id: book,
              };
              read.push(
                JSON.stringify([day.board.price({ ...key, line: line.value }), [...day.board.linePrices(key)]]),
              );
            }
    out['feed reads'] = digest(read.join('\n'));
    const futures = day.board
      .futuresOfSport(6)
      .map((b) =>
        [...b.markets.values()].map((m) => [...m.participants.values()].map((p) => [p.id, [...p.prices.values()]])),
      );
    out.futures = digest(JSON.stringify(futures));
    out['futures prices'] = String(JSON.stringify(futures).split('"change_id"').length - 1);
    const rows = await day.store.readChanges({
      pricesOnly: false,
      afterId: 0,
      toId: day.board.head,
      limit: Number.MAX_SAFE_INTEGER,
    });
    out['change rows'] = digest(rows.map((r) => `${r.id} ${r.payload} ${r.detail ?? ''}`).join('\n'));
    out.rows = String(rows.length);
    return out;
  } finally {
    day.close();
  }
}

if (process.argv[1] && import.meta.url.endsWith(process.argv[1].split('/').pop()!)) {
  process.stdout.write(JSON.stringify(await boardAnswers()));
}
