import type { Account } from './authenticator.ts';
import type { Entitlements } from './entitlements.ts';

/**
 * What the scope reads of the current catalog: which markets it lists, which of them are player
 * props (the market records' `proposition`) and which in play (named as a record's
 * `live_variant_id`), a feed's own markets as much as the simulator's.
 */
export interface MarketKinds {
  /** Raised by every change of the catalog. */
  readonly version: number;
  isProposition(marketId: number): boolean;
  isInPlay(marketId: number): boolean;
  /** Every market id the catalog lists, in id order. */
  marketIds(): readonly number[];
}

/**
 * What a key may see, worked out once per plan and catalog: the books, periods and markets it covers, its data
 * delay (which board view it reads) and its history window. Every route and stream applies this one
 * object; none decides coverage on its own.
 */
export interface PlanScope {
  /** Names what the scope covers: two scopes with the same key answer every request alike. */
  readonly key: string;
  /** Seconds of data delay: the board view the plan reads. */
  readonly delaySeconds: number;
  /** Days back from today (UTC) that date-scoped requests reach; undefined: no window. */
  readonly historyDays: number | undefined;
  /** Books covered; null: every book. */
  readonly books: ReadonlySet<number> | null;
  /** Periods covered; null: every period. */
  readonly periods: ReadonlySet<number> | null;
  readonly liveOdds: boolean;
  readonly playerProps: boolean;
  readonly liveGameState: boolean;
  readonly futures: boolean;
  /** True when the plan leaves out some markets (in-play or props), so id filters must be applied. */
  readonly restrictsMarkets: boolean;
  coversBook(affiliateId: number): boolean;
  coversPeriod(periodId: number): boolean;
  coversMarket(marketId: number): boolean;
  /** The books a request may see: those it asked for (default every one) within coverage; null: every book. */
  booksFor(requested: readonly number[] | undefined): ReadonlySet<number> | null;
  /** The market ids a request may see, among `requested` or (undefined) every market; undefined: no limit. */
  marketIdsFor(requested: readonly number[] | undefined): number[] | undefined;
}

class Scope implements PlanScope {
  readonly key: string;
  readonly restrictsMarkets: boolean;
  /** The catalog's market ids the plan covers, as of the catalog's `version`. */
  private catalogIds: { version: number; ids: number[] } | undefined;

  constructor(
    /** Read only when the plan leaves out some markets. */
    private readonly markets: MarketKinds | undefined,
    readonly delaySeconds: number,
    readonly historyDays: number | undefined,
    readonly books: ReadonlySet<number> | null,
    readonly periods: ReadonlySet<number> | null,
    readonly liveOdds: boolean,
    readonly playerProps: boolean,
    readonly liveGameState: boolean,
    readonly futures: boolean,
  ) {
    this.restrictsMarkets = !liveOdds || !playerProps;
    const ids = (v: ReadonlySet<number> | null) => (v === null ? '*' : [...v].sort((a, b) => a - b).join(','));
    const flags = [liveOdds, playerProps, liveGameState, futures].map(Number).join('');
    this.key = `${delaySeconds}|${historyDays ?? '*'}|${ids(books)}|${ids(periods)}|${flags}`;
  }

  coversBook(affiliateId: number): boolean {
    return this.books === null || this.books.has(affiliateId);
  }

  coversPeriod(periodId: number): boolean {
    return this.periods === null || this.periods.has(periodId);
  }

  coversMarket(marketId: number): boolean {
    if (!this.liveOdds && this.markets!.isInPlay(marketId)) return false;
    if (!this.playerProps && this.markets!.isProposition(marketId)) return false;
    return true;
  }

  booksFor(requested: readonly number[] | undefined): ReadonlySet<number> | null {
    if (this.books === null) return requested ? new Set(requested) : null;
    return new Set(requested ? requested.filter((id) => this.books!.has(id)) : this.books);
  }

  marketIdsFor(requested: readonly number[] | undefined): number[] | undefined {
    if (requested) return this.restrictsMarkets ? requested.filter((id) => this.coversMarket(id)) : [...requested];
    if (!this.restrictsMarkets) return undefined;
    // A restricted plan sees the markets the catalog lists (a market it does not list has no kind).
    const version = this.markets!.version;
    if (this.catalogIds?.version !== version) {
      this.catalogIds = { version, ids: this.markets!.marketIds().filter((id) => this.coversMarket(id)) };
    }
    return this.catalogIds.ids;
  }
}

const list = (v: readonly number[] | 'all'): ReadonlySet<number> | null => (v === 'all' ? null : new Set(v));

/** Scopes by catalog, then by plan: a catalog is a server's, a plan any number of keys'. */
const scopes = new WeakMap<MarketKinds, WeakMap<Entitlements, PlanScope>>();

function scopeOfPlan(e: Entitlements, markets: MarketKinds): PlanScope {
  let ofCatalog = scopes.get(markets);
  if (!ofCatalog) {
    ofCatalog = new WeakMap();
    scopes.set(markets, ofCatalog);
  }
  let scope = ofCatalog.get(e);
  if (!scope) {
    scope = new Scope(
      markets,
      e.delaySeconds,
      e.historyDays,
      list(e.bookmakers),
      list(e.periods),
      e.liveOdds,
      e.playerProps,
      e.liveGameState,
      e.futures,
    );
    ofCatalog.set(e, scope);
  }
  return scope;
}

/** The scope of a server run without the access layer (benchmarks): everything, in real time. */
export const OPEN_SCOPE: PlanScope = new Scope(undefined, 0, undefined, null, null, true, true, true, true);

/** The scope of a caller under the current catalog; without an account (no access layer) everything is open. */
export function scopeOf(account: Account | undefined, markets: MarketKinds): PlanScope {
  return account ? scopeOfPlan(account.entitlements, markets) : OPEN_SCOPE;
}

/** The scope as id lists for stores to filter by; undefined where the plan covers everything. */
export function coverageOf(scope: PlanScope): {
  affiliateIds?: number[];
  marketIds?: number[];
  periodIds?: number[];
} {
  const sorted = (s: ReadonlySet<number>) => [...s].sort((a, b) => a - b);
  const out: { affiliateIds?: number[]; marketIds?: number[]; periodIds?: number[] } = {};
  if (scope.books) out.affiliateIds = sorted(scope.books);
  const markets = scope.marketIdsFor(undefined);
  if (markets) out.marketIds = markets;
  if (scope.periods) out.periodIds = sorted(scope.periods);
  return out;
}
