import type { FuturesHeader, FuturesParticipant, FuturesPriceState, FuturesSettlement } from '../domain/futures.ts';

export type { FuturesPriceState } from '../domain/futures.ts';

export interface FuturesParticipantState extends FuturesParticipant {
  prices: Map<number, FuturesPriceState>;
}

export interface FuturesMarketState {
  market_id: number;
  name: string;
  /** By participant id, in the header's order. */
  participants: Map<number, FuturesParticipantState>;
}

export interface FuturesBoardState {
  header: FuturesHeader;
  markets: Map<number, FuturesMarketState>;
  settlement: FuturesSettlement;
  /** Time described by the last row that changed the board. */
  updated_at: string;
  /** Id of the last change row that touched the board. */
  version: number;
}

/**
 * The futures boards of a board, by id and by sport. Only board/apply.ts changes them, with
 * committed rows, as it does the events.
 */
export class FuturesBoards {
  readonly byId = new Map<string, FuturesBoardState>();
  private readonly bySport = new Map<number, FuturesBoardState[]>();

  clear(): void {
    this.byId.clear();
    this.bySport.clear();
  }

  get(eventId: string): FuturesBoardState | undefined {
    return this.byId.get(eventId);
  }

  /** A sport's boards, the soonest decided first (then by id), settled ones included. */
  ofSport(sportId: number): readonly FuturesBoardState[] {
    return this.bySport.get(sportId) ?? [];
  }

  add(state: FuturesBoardState): void {
    this.byId.set(state.header.event_id, state);
    const list = this.bySport.get(state.header.sport_id) ?? [];
    list.push(state);
    list.sort(
      (a, b) => a.header.ends_at.localeCompare(b.header.ends_at) || a.header.event_id.localeCompare(b.header.event_id),
    );
    this.bySport.set(state.header.sport_id, list);
  }
}
