import type { PriceState } from '../domain/event-state.ts';
import type { FuturesPriceState } from '../domain/futures.ts';
import { pick } from './switch.ts';

/**
 * How the board makes and replaces its price states. The trick: literals shaped for V8, and
 * prices rewritten in place. The plain twin: an object built field by field, and a new object per
 * change. Both give the board the same values; only object identity differs (in place, a price
 * keeps its object for life; plain, each change brings a new one), which no reader relies on.
 */

export type MakePriceState = (
  id: number,
  affiliateId: number,
  price: number,
  isMainLine: boolean,
  updatedAt: string,
  closedAt: string,
  priceDelta: number,
  changeId: number,
  liquidityUsd: number | undefined,
  sourceId: string | undefined,
  movedFrom: string | undefined,
) => PriceState;

/**
 * A price state with its optional fields in the literal. V8 keeps a literal's properties inside the
 * object; one added afterwards goes to a property array of its own (40-60 bytes), which every state
 * of the exchange's and the prediction market's prices had, and every copy the delayed views keep of
 * them (2.2 MB in a heap snapshot of a mixed load). `moved_from` is rare (main-line moves) and added.
 */
export const shapedPriceState: MakePriceState = (
  id,
  affiliateId,
  price,
  isMainLine,
  updatedAt,
  closedAt,
  priceDelta,
  changeId,
  liquidityUsd,
  sourceId,
  movedFrom,
) => {
  let state: PriceState;
  if (liquidityUsd !== undefined && sourceId !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      liquidity_usd: liquidityUsd,
      source_id: sourceId,
    };
  } else if (liquidityUsd !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      liquidity_usd: liquidityUsd,
    };
  } else if (sourceId !== undefined) {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
      source_id: sourceId,
    };
  } else {
    state = {
      id,
      affiliate_id: affiliateId,
      price,
      is_main_line: isMainLine,
      updated_at: updatedAt,
      closed_at: closedAt,
      price_delta: priceDelta,
      change_id: changeId,
    };
  }
  if (movedFrom !== undefined) state.moved_from = movedFrom;
  return state;
};

/** The plain twin: the required fields, then each optional one that has a value. */
export const plainPriceState: MakePriceState = (
  id,
  affiliateId,
  price,
  isMainLine,
  updatedAt,
  closedAt,
  priceDelta,
  changeId,
  liquidityUsd,
  sourceId,
  movedFrom,
) => {
  const state: PriceState = {
    id,
    affiliate_id: affiliateId,
    price,
    is_main_line: isMainLine,
    updated_at: updatedAt,
    closed_at: closedAt,
    price_delta: priceDelta,
    change_id: changeId,
  };
  if (liquidityUsd !== undefined) state.liquidity_usd = liquidityUsd;
  if (sourceId !== undefined) state.source_id = sourceId;
  if (movedFrom !== undefined) state.moved_from = movedFrom;
  return state;
};

/** What a price change left: the board's state of the price now, and a state with its values before. */
export interface Rewritten {
  price: PriceState;
  before: PriceState;
}

/**
 * Puts `next` (a new state of the price `current`, the same book on the same line) on the line.
 * `next` is the planner's and is never changed afterwards.
 */
export type ReplacePrice = (prices: Map<number, PriceState>, current: PriceState, next: PriceState) => Rewritten;

/**
 * Rewritten in place: a new object per update would outlive the young generation (a price is
 * rewritten every few batches) and be promoted, only to die there. `before` is a copy.
 */
export const rewriteInPlace: ReplacePrice = (_prices, current, next) => {
  const before = { ...current };
  current.price = next.price;
  current.is_main_line = next.is_main_line;
  current.updated_at = next.updated_at;
  current.closed_at = next.closed_at;
  current.price_delta = next.price_delta;
  current.change_id = next.change_id;
  if (next.liquidity_usd === undefined) delete current.liquidity_usd;
  else current.liquidity_usd = next.liquidity_usd;
  if (next.source_id === undefined) delete current.source_id;
  else current.source_id = next.source_id;
  if (next.moved_from === undefined) delete current.moved_from;
  else current.moved_from = next.moved_from;
  return { price: current, before };
};

/** The plain twin: `next` takes the old state's place, which stays as it was. */
export const replaceWhole: ReplacePrice = (prices, current, next) => {
  prices.set(next.affiliate_id, next);
  return { price: next, before: current };
};

/** Puts a futures price's new state in the place of `current` (the same book); returns the board's state now. */
export type ReplaceFuturesPrice = (
  prices: Map<number, FuturesPriceState>,
  current: FuturesPriceState,
  next: FuturesPriceState,
) => FuturesPriceState;

/** In place, as event prices are: a board's prices are rewritten after every game. */
export const rewriteFuturesInPlace: ReplaceFuturesPrice = (_prices, current, next) => {
  current.price = next.price;
  current.price_delta = next.price_delta;
  current.updated_at = next.updated_at;
  current.closed_at = next.closed_at;
  current.change_id = next.change_id;
  return current;
};

/** The plain twin: `next` takes the old state's place. */
export const replaceWholeFutures: ReplaceFuturesPrice = (prices, _current, next) => {
  prices.set(next.affiliate_id, next);
  return next;
};

export const priceState: MakePriceState = pick(shapedPriceState, plainPriceState);
export const replaceFuturesPrice: ReplaceFuturesPrice = pick(rewriteFuturesInPlace, replaceWholeFutures);
export const replacePrice: ReplacePrice = pick(rewriteInPlace, replaceWhole);
