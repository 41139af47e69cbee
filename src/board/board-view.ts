import type { EventState } from './event-state.ts';
import type { FuturesBoardState } from './futures.ts';
import type { ArchivedSeason } from './season-archive.ts';

/**
 * The board as one plan sees it: the live board for real-time plans, a delayed view for the
 * others. Routes and streams read through this and nothing else, so a delay holds everywhere.
 */
export interface BoardView {
  /** The last change id this view shows: no read through it looks past it. */
  readonly head: number;
  getEvent(eventId: string): EventState | undefined;
  /** The sport's events ordered by scheduled start, then id. */
  eventsOfSport(sportId: number): readonly EventState[];
  /** Events of a sport whose start lies in [fromMs, toMs). */
  eventsInWindow(sportId: number, fromMs: number, toMs: number): EventState[];
  /** A futures board by id. */
  getFutures(eventId: string): FuturesBoardState | undefined;
  /** The sport's futures boards, the soonest decided first, settled ones included. */
  futuresOfSport(sportId: number): readonly FuturesBoardState[];
  /** The summed boxes of a team's archived games of one sport id, season year and season type. */
  archivedSeason(sportId: number, teamId: number, year: number, seasonType: string): ArchivedSeason | undefined;
}
