import type { StatsEntry } from '../../src/catalog/records.ts';
import type { KeyRecord } from '../../src/store/keys.ts';
import type { Discipline } from '../../src/catalog/sports.ts';
import type { Tier } from '../../src/catalog/tiers.ts';
import type { EventInfo, Score } from '../../src/domain/types.ts';
import type { PlayInput } from '../../src/domain/plays.ts';
import type { CatalogUpdate, PriceUpdate, UpdateBatch } from '../../src/ledger/updates.ts';

export const today = (): string => new Date().toISOString().slice(0, 10);

/** A V2 key's stored record on `tier`, with no custom limits, created on a fixed day. */
export function keyRecord(tier: Tier): KeyRecord {
  return {
    key_hash: `hash-${tier}`,
    key_prefix: 'ob_',
    tier,
    label: '',
    created_at: '2026-10-01T00:00:00.000Z',
    revoked_at: null,
    expires_at: null,
    billing: 'monthly',
    budget_cap_usd: null,
    v1: 0,
    v2: 1,
    credits: 0,
    credits_expiry: null,
    custom: null,
  };
}

/** An NBA event (sport 4) starting at `hour`:00 UTC on `date`. */
export function nbaEvent(id: string, date = today(), hour = 23): Omit<EventInfo, 'score' | 'live_game_state'> {
  return {
    event_id: id,
    sport_id: 4,
    event_uuid: `00000000-0000-4000-8000-${id.slice(0, 12).padEnd(12, '0')}`,
    event_date: `${date}T${String(hour).padStart(2, '0')}:00:00Z`,
    rotation_number_away: 501,
    rotation_number_home: 502,
    teams: [
      {
        team_id: 2002,
        name: 'Boston',
        mascot: 'Celtics',
        abbreviation: 'BOS',
        record: '10-5',
        is_away: true,
        is_home: false,
      },
      {
        team_id: 2014,
        name: 'Los Angeles',
        mascot: 'Lakers',
        abbreviation: 'LAL',
        record: '9-6',
        is_away: false,
        is_home: true,
      },
    ],
    schedule: {
      season_type: 'Regular Season',
      season_year: 2026,
      event_name: 'Boston at Los Angeles',
      league_name: 'NBA',
    },
  };
}

/**
 * The stat definitions of a sport no built-in table has (60, a feed's pickleball) as a catalog
 * record: one stat, dinks, kept for players and teams.
 */
export const PICKLEBALL_STATS: StatsEntry = {
  type: 'stats',
  sport_id: 60,
  stats: [
    {
      id: 60_001,
      name: 'dinks',
      display_name: 'Dinks',
      abbreviation: 'DNK',
      category: 'rally',
      description: 'Dinks played',
      scope: 'both',
    },
  ],
};

type PriceArgs = Partial<PriceUpdate> & Pick<PriceUpdate, 'market_id' | 'participant_id' | 'affiliate_id' | 'price'>;

export function price(eventId: string, a: PriceArgs): PriceUpdate {
  const type = a.participant_type ?? (a.market_id === 3 || a.market_id === 43 ? 'TYPE_RESULT' : 'TYPE_TEAM');
  return {
    kind: 'price',
    event_id: eventId,
    period_id: 0,
    participant_type: type,
    participant_name:
      a.participant_name ?? (type === 'TYPE_RESULT' ? (a.participant_id === 0 ? 'Over' : 'Under') : 'Team'),
    line: '',
    ...a,
  };
}

/** Moneyline, spread (main -3.5 and an alternate -4.5) and total at books 19 and 23. */
export function nbaPrices(eventId: string): PriceUpdate[] {
  const out: PriceUpdate[] = [];
  for (const aff of [19, 23]) {
    out.push(
      price(eventId, {
        market_id: 1,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: aff,
        price: 130,
      }),
    );
    out.push(
      price(eventId, {
        market_id: 1,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: aff,
        price: -150,
      }),
    );
    out.push(
      price(eventId, {
        market_id: 2,
        participant_id: 2002,
        participant_name: 'Boston',
        affiliate_id: aff,
        line: '3.5',
        price: -110,
        is_main_line: true,
      }),
    );
    out.push(
      price(eventId, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: aff,
        line: '-3.5',
        price: -110,
        is_main_line: true,
      }),
    );
    out.push(
      price(eventId, {
        market_id: 2,
        participant_id: 2014,
        participant_name: 'Los Angeles',
        affiliate_id: aff,
        line: '-4.5',
        price: 105,
      }),
    );
    out.push(
      price(eventId, {
        market_id: 3,
        participant_id: 0,
        affiliate_id: aff,
        line: '221.5',
        price: -108,
        is_main_line: true,
      }),
    );
    out.push(
      price(eventId, {
        market_id: 3,
        participant_id: 1,
        affiliate_id: aff,
        line: '221.5',
        price: -112,
        is_main_line: true,
      }),
    );
  }
  return out;
}

export function batch(at: string, updates: UpdateBatch['updates']): UpdateBatch {
  return { at, updates };
}

/**
 * Moneylines moved again and again: `steps` batches of 16 price rows each (both teams at books 19
 * and 23, periods 0-3), for tests that need many price rows of one event (large delta pages).
 */
export function moneylineMoves(eventId: string, steps: number, at: string): UpdateBatch[] {
  const out: UpdateBatch[] = [];
  for (let step = 1; step <= steps; step++) {
    const updates = [19, 23].flatMap((aff) =>
      [2002, 2014].flatMap((team) =>
        [0, 1, 2, 3].map((k) =>
          price(eventId, {
            market_id: 1,
            participant_id: team,
            participant_name: team === 2002 ? 'Boston' : 'Los Angeles',
            affiliate_id: aff,
            period_id: k,
            price: 100 + step,
          }),
        ),
      ),
    );
    out.push(batch(at, updates));
  }
  return out;
}

export function score(eventId: string, status: Score['event_status'], away: number, home: number): Score {
  return {
    event_id: eventId,
    event_status: status,
    score_away: away,
    score_home: home,
    winner_away: 0,
    winner_home: 0,
    score_away_by_period: [away],
    score_home_by_period: [home],
    venue_name: 'Arena',
    venue_location: 'Los Angeles, CA',
    game_clock: 300,
    display_clock: '5:00',
    game_period: 1,
    broadcast: '',
    event_status_detail: 'Q1 5:00',
    updated_at: new Date().toISOString(),
  };
}

/** A play crediting `n` of `stat` to `player` of `team`; `after` is the score it leads to. */
export function creditPlay(
  team: number,
  player: number,
  stat: string,
  n: number,
  after: { away: number; home: number },
): PlayInput {
  return {
    period: 1,
    game_clock: 600,
    display_clock: '10:00',
    description: `${stat} by ${player}`,
    team_id: team,
    score_away: after.away,
    score_home: after.home,
    players: [player],
    credits: [{ team_id: team, player_id: player, stat, n }],
    people: [{ id: player, display_name: `Player ${player}`, position: 'G' }],
  };
}

/**
 * Play n of a long NBA game between `away` and `home` (the teams of nbaEvent): a two from one of
 * four players, two a side, or a rebound every third play; 250 plays a period.
 */
export function rotationPlay(n: number, before: { away: number; home: number }, away = 2002, home = 2014): PlayInput {
  const players = [away * 100 + 1, away * 100 + 2, home * 100 + 1, home * 100 + 2];
  const player = players[n % 4]!;
  const team = player < home * 100 ? away : home;
  const scores = n % 3 !== 0;
  const after = { ...before };
  if (scores) after[team === away ? 'away' : 'home'] += 2;
  return {
    ...creditPlay(team, player, scores ? 'points' : 'rebounds', scores ? 2 : 1, after),
    period: 1 + Math.floor((n - 1) / 250),
    game_clock: 720 - (n % 250),
    display_clock: '',
    description: `play ${n}`,
  };
}

/** The stats whose team values make a side's score, per discipline (none where the score is not a count of plays). */
export const SCORING_STATS: Record<Discipline, readonly string[]> = {
  basketball: ['points'],
  football: ['points'],
  baseball: ['runs'],
  hockey: ['goals', 'shootoutGoals'],
  soccer: ['goals'],
  tennis: ['setsWon'],
  cricket: ['runs'],
  mma: [],
  politics: [],
  golf: [],
  motorsport: [],
};

/** A `stats` catalog record of `sport_id` defining one stat of each id, each named after its id. */
export const statsRecord = (sport_id: number, ids: number[]): CatalogUpdate => ({
  kind: 'catalog',
  record: {
    type: 'stats',
    sport_id,
    stats: ids.map((id) => ({
      id,
      name: `stat${id}`,
      display_name: `Stat ${id}`,
      abbreviation: 'S',
      category: 'test',
      description: '',
      scope: 'both',
    })),
  },
});
