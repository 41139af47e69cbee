import type { Static } from '@sinclair/typebox';
import fastJson from 'fast-json-stringify';
import type { PlanScope } from '../access/plan-scope.ts';
import type { LineSet } from '../projection/v1-line-sets.ts';
import { LineDataSchema } from '../projection/v1-schemas.ts';

/**
 * The V1 stream's frames (/api/v1/ws): one per line set (event, book, V1 period) that a committed
 * batch changed, holding the line set as the V1 line routes build it from the board right after that
 * batch. It is built by the same LineSetBuilder, so every number is the V2 main-line price it comes
 * from; it is serialised once and the same text goes to every client it matches.
 */

const serializeLineData: (data: Static<typeof LineDataSchema>) => string = fastJson(LineDataSchema);

export class LineFrame {
  readonly kind = 'line';
  /** The set's V1 period id (0 full game … 7 live full game). */
  readonly periodId: number;
  private json?: string;
  private message?: string;

  constructor(
    /** Change id of the batch's last row that touched the set. */
    readonly id: number,
    readonly eventId: string,
    readonly sportId: number,
    readonly affiliateId: number,
    private readonly set: LineSet,
    /** The V2 markets the set is built from: a plan must cover all of them to receive it. */
    private readonly markets: readonly { market_id: number; period_id: number }[],
    /** V2 prices the set shows: one odds point each (as the V1 line routes meter them). */
    readonly points: number,
  ) {
    this.periodId = set.period_id;
  }

  get data(): string {
    this.json ??= serializeLineData({ event_id: this.eventId, sport_id: this.sportId, ...this.set });
    return this.json;
  }

  /** The whole V1 message, serialised once; `timestamp` in Unix seconds. */
  dedicatedMessage(timestamp: number): string {
    this.message ??= `{"meta":{"type":"line","version":"v1","timestamp":${timestamp}},"data":${this.data}}`;
    return this.message;
  }

  /**
   * Whether a plan sees this set as the V1 line routes show it to that plan: its book and every
   * market the set is built from. A plan that covers only part of them is not sent a set that
   * differs from its REST answer (no WebSocket plan is narrower than all books, periods and in-play
   * markets today).
   */
  coveredBy(scope: PlanScope): boolean {
    if (!scope.coversBook(this.affiliateId)) return false;
    return this.markets.every((m) => scope.coversPeriod(m.period_id) && scope.coversMarket(m.market_id));
  }
}
