import type { Affiliate, OddsbaseClient, Plan } from '../../packages/client/src/index.ts';
import type { LiveFeed } from './live-feed.ts';
import type { OddsFormat } from './odds-format.ts';
import type { Book } from './odds-table.ts';

/** What every view of the page shares. */
export interface AppContext {
  client: OddsbaseClient;
  feed: LiveFeed;
  affiliates: readonly Affiliate[];
  format: OddsFormat;
  /** Remembers the viewer's odds format for the next view. */
  setFormat(format: OddsFormat): void;
}

/** The books a plan allows (X-Bookmakers), named by the affiliate listing, in id order. */
export function booksOf(affiliates: readonly Affiliate[], plan: Plan): Book[] {
  const allowed = plan.bookmakers;
  return affiliates
    .filter((a) => allowed === undefined || allowed === 'all' || allowed.includes(a.affiliate_id))
    .map((a) => ({ id: a.affiliate_id, name: a.affiliate_name }))
    .sort((a, b) => a.id - b.id);
}

/** The day boundary offset (minutes) of the viewer's time zone on a date, as the spec's `offset`. */
export function offsetOf(date: string): number {
  return new Date(`${date}T12:00:00`).getTimezoneOffset();
}

export function today(): string {
  const d = new Date();
  const pad = (n: number) => String(n).padStart(2, '0');
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}`;
}
