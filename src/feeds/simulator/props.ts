import { applyMargin, OFF_BOARD } from '../../domain/odds.ts';
import type { PlayerStats } from './game.ts';
import { phi } from './model.ts';
import type { Book, ParticipantRef, PriceBook } from './pricing.ts';
import { quotePrice } from './pricing.ts';
import type { Player } from './roster.ts';

/**
 * Basketball player props: points, rebounds, assists, threes and their sum, prematch and live.
 * Each prop is one player participant with two lines, "Over 24.5" and "Under 24.5"; the Over line
 * carries the main-line flag (the ledger keeps one main line per book and participant).
 */

type Stat = 'points' | 'rebounds' | 'assists' | 'threes' | 'pra';

export const PROP_MARKETS: readonly { prematch: number; live: number; stat: Stat }[] = [
  { prematch: 29, live: 90, stat: 'points' },
  { prematch: 35, live: 982, stat: 'rebounds' },
  { prematch: 39, live: 91, stat: 'assists' },
  { prematch: 38, live: 92, stat: 'threes' },
  { prematch: 93, live: 987, stat: 'pra' },
];

/** Players with props per team. */
const PROPS_PER_TEAM = 3;

export interface PropPlayer {
  player: Player;
  ref: ParticipantRef;
  /** Expected full-game numbers. */
  mean: PlayerStats;
}

/** The team's top players by usage and what they are expected to produce against `teamPoints`. */
export function propPlayers(roster: readonly Player[], teamPoints: number): PropPlayer[] {
  const total = (f: (p: Player) => number) => roster.reduce((acc, p) => acc + f(p), 0);
  const usage = total((p) => p.usage);
  const rebounding = total((p) => p.rebounding);
  const assisting = total((p) => p.assisting);
  const threes = total((p) => p.threes);
  return [...roster]
    .sort((a, b) => b.usage - a.usage)
    .slice(0, PROPS_PER_TEAM)
    .map((player) => ({
      player,
      ref: { id: player.id, type: 'TYPE_PLAYER', name: player.name },
      mean: {
        points: (teamPoints * player.usage) / usage,
        rebounds: (0.38 * teamPoints * player.rebounding) / rebounding,
        assists: (0.22 * teamPoints * player.assisting) / assisting,
        threes: (0.11 * teamPoints * player.threes) / threes,
      },
    }));
}

function value(stats: PlayerStats, stat: Stat): number {
  return stat === 'pra' ? stats.points + stats.rebounds + stats.assists : stats[stat];
}

/** P(X > k) for X ~ Poisson(mean), k >= 0. */
function poissonAbove(mean: number, k: number): number {
  let p = Math.exp(-mean);
  let cdf = p;
  for (let i = 1; i <= k; i++) {
    p = (p * mean) / i;
    cdf += p;
  }
  return Math.max(0, 1 - cdf);
}

export interface PropQuote {
  book: Book;
  prices: PriceBook;
  players: readonly PropPlayer[];
  /** Live numbers so far (absent prematch) and the share of the game still to play. */
  stats?: ReadonlyMap<number, PlayerStats>;
  remaining: number;
  live: boolean;
  nowMs: number;
}

const ZERO: PlayerStats = { points: 0, rebounds: 0, assists: 0, threes: 0 };

/** Prices every prop market of one book. */
export function quoteProps(q: PropQuote): void {
  const { book } = q;
  for (const market of PROP_MARKETS) {
    const marketId = q.live ? market.live : market.prematch;
    const off = (book.offUntil.get(marketId) ?? 0) > q.nowMs;
    for (const pp of q.players) {
      const now = value(q.stats?.get(pp.player.id) ?? ZERO, market.stat);
      const mean = value(pp.mean, market.stat) * q.remaining;
      const key = `${marketId}:${pp.player.id}`;
      const wide = market.stat === 'points' || market.stat === 'pra';
      let line = book.mains.get(key);
      const projection = now + mean * (1 + book.sideBias);
      // Re-line when the projection has run away from the line or the line is already beaten.
      if (line === undefined || line < now || Math.abs(projection - line) > (wide ? 2.5 : 1.5)) {
        line = Math.max(now, Math.floor(projection)) + 0.5;
        book.mains.set(key, line);
      }
      const needed = line - now;
      const over = wide
        ? 1 - phi((needed - mean) / Math.max(0.5, Math.sqrt(2.2 * mean)))
        : poissonAbove(mean, Math.floor(needed));
      const [io, iu] = applyMargin(
        [Math.min(0.97, Math.max(0.03, over)), Math.min(0.97, Math.max(0.03, 1 - over))],
        book.profile.margin * 1.5,
      );
      const price = (implied: number) => (off ? OFF_BOARD : quotePrice(book.profile, implied));
      q.prices.sync(marketId, 0, pp.ref, book.profile.affiliate_id, [
        { line: `Over ${line}`, price: price(io), main: true },
        { line: `Under ${line}`, price: price(iu), main: false },
      ]);
    }
  }
}
