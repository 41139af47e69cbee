import { type Event, ForbiddenError, type OddsbaseClient, type Play } from '../../../packages/client/src/index.ts';
import type { Board } from '../../board/board.ts';
import type { BoxScoreUpdate, LedgerSink, Update } from '../../ledger/updates.ts';
import { boxScoreRecord, playRecord } from './game-records.ts';
import { MIRROR_BATCH } from './records.ts';

/** Plays a request may ask for (spec: plays per request). */
const PLAYS_PER_PAGE = 500;

export interface GameReadOptions {
  client: OddsbaseClient;
  ledger: LedgerSink;
  /** The mirror's board: how many plays and which box values it holds. */
  board: Board;
  now: () => number;
}

/**
 * The mirror's reads of events' plays and box scores. Plays are read from the one after the last the
 * mirror holds, newest first as the route pages them: a probe of one play says the upstream's last
 * number, and pages of at most 500 go back to the held one, so a poll costs one data point per
 * event with plays, plus one per new play. The box score (one point per value) is read when new
 * plays came and when asked (a snapshot): an oddsbase upstream changes a box only with a play. A
 * read the key's plan refuses (403) is not asked again; without plays the box is read whenever the
 * event changed.
 */
export class GameReads {
  /** The upstream refused the key plays or box scores: not asked again. */
  private playsRefused = false;
  private boxRefused = false;

  constructor(private readonly o: GameReadOptions) {}

  /**
   * Brings an event's new plays and, when due (`refresh`: always), its box score to the ledger, in
   * batches at the time of the newest play read. An event without a score has not started: no plays,
   * an empty box.
   */
  async mirror(e: Event, refresh: boolean, signal: AbortSignal): Promise<void> {
    const held = this.o.board.events.get(e.event_id);
    if (!held || !e.score) return;
    const plays = await this.newPlays(e.event_id, held.game?.plays ?? 0, signal);
    const updates: Update[] = plays.map(playRecord);
    if (refresh || plays.length > 0 || this.playsRefused) {
      const box = await this.box(e, signal);
      const shown = box && (box.players.length > 0 || box.teams.some((t) => t.stats.length > 0));
      // An empty box is sent only to take away values the mirror holds.
      if (box && (shown || (held.game?.version ?? 0) > 0)) updates.push(box);
    }
    const at = plays.at(-1)?.created_at ?? new Date(this.o.now()).toISOString();
    for (let i = 0; i < updates.length; i += MIRROR_BATCH) {
      // A stopping mirror commits no further batch.
      signal.throwIfAborted();
      await this.o.ledger.apply({ at, updates: updates.slice(i, i + MIRROR_BATCH) });
    }
  }

  /** The upstream's plays numbered above `have`, oldest first. */
  private async newPlays(eventId: string, have: number, signal: AbortSignal): Promise<Play[]> {
    if (this.playsRefused) return [];
    try {
      const probe = (await this.o.client.plays(eventId, { limit: 1 }, { signal })).data;
      const out = [...probe.plays];
      let before = probe.meta.last_sequence;
      while (before - 1 > have) {
        const limit = Math.min(PLAYS_PER_PAGE, before - 1 - have);
        const page = (await this.o.client.plays(eventId, { limit, before_sequence: before }, { signal })).data;
        if (page.plays.length === 0) break;
        out.push(...page.plays);
        before = page.plays.at(-1)!.sequence;
      }
      return out.filter((p) => p.sequence > have).sort((a, b) => a.sequence - b.sequence);
    } catch (err) {
      if (!(err instanceof ForbiddenError)) throw err;
      this.playsRefused = true;
      return [];
    }
  }

  private async box(e: Event, signal: AbortSignal): Promise<BoxScoreUpdate | undefined> {
    if (this.boxRefused) return undefined;
    try {
      const teams = (await this.o.client.teamGameStats(e.event_id, {}, { signal })).data;
      const players = (await this.o.client.playerGameStats(e.event_id, {}, { signal })).data;
      return boxScoreRecord(e.event_id, e.sport_id, teams, players, this.o.board.catalog);
    } catch (err) {
      if (!(err instanceof ForbiddenError)) throw err;
      this.boxRefused = true;
      return undefined;
    }
  }
}
