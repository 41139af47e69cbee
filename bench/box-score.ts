/**
 * The box-score and season-stats routes on the real server (live simulator), each against a bare
 * node:http server returning the same bytes: bench/events.ts with another path, so the same pinning,
 * rounds, CPU accounting and medians. Issue target: at least 70% of bare.
 *
 *   node --import tsx bench/box-score.ts [--only box|season] [--rounds 5] [--duration 10] [--no-start-flags]
 *
 * The path is found on the started server: the player box of yesterday's last final NBA game, and
 * the season player stats of its home team. Both are serialised once per change of the boxes they
 * sum (src/http/box-score.ts, src/http/season-stats.ts).
 */
import { type EventsOptions, type EventsResult, eventsMarkdown, parseEventsArgs, runEvents } from './events.ts';
import { isMain, todayUtc } from './lib.ts';

interface EventsBody {
  events: { event_id: string; teams: { team_id: number; is_home: boolean }[]; score?: { event_status: string } }[];
}

/** Yesterday's last final NBA game on the started server. */
async function finalGame(base: string, key: string): Promise<EventsBody['events'][number]> {
  const yesterday = new Date(Date.parse(todayUtc()) - 86_400_000).toISOString().slice(0, 10);
  const res = await fetch(`${base}/api/v2/sports/4/events/${yesterday}`, { headers: { 'X-Service-Key': key } });
  const body = (await res.json()) as EventsBody;
  const finals = body.events.filter((e) => e.score?.event_status === 'STATUS_FINAL');
  const game = finals.at(-1);
  if (!game) throw new Error(`no final NBA game on ${yesterday}: the simulator did not fill the board`);
  return game;
}

/** Player groups as "events", stat values as "prices". */
function countGroups(body: unknown): { events: number; prices: number } {
  const groups = body as { stats: unknown[] }[];
  return { events: groups.length, prices: groups.reduce((n, g) => n + g.stats.length, 0) };
}

export function runBoxScore(opts: EventsOptions = {}): Promise<EventsResult> {
  return runEvents({
    ...opts,
    pathOn: async (base, key) => `/api/v2/events/${(await finalGame(base, key)).event_id}/players/stats`,
    count: countGroups,
  });
}

export function runSeasonStats(opts: EventsOptions = {}): Promise<EventsResult> {
  return runEvents({
    ...opts,
    pathOn: async (base, key) => {
      const home = (await finalGame(base, key)).teams.find((t) => t.is_home)!;
      return `/api/v2/teams/${home.team_id}/players/stats`;
    },
    count: countGroups,
  });
}

if (isMain(import.meta.url)) {
  const argv = process.argv.slice(2);
  // --only box | season: one of the two routes (each run starts its own server and fills its history).
  const at = argv.indexOf('--only');
  const only = at >= 0 ? argv.splice(at, 2)[1] : undefined;
  if (only !== undefined && only !== 'box' && only !== 'season') throw new Error(`--only box or season, got ${only}`);
  // Issue "scores, statistics...": these routes at least 70% of bare node:http.
  const opts = { ...parseEventsArgs(argv), target: 0.7 };
  if (only !== 'season') process.stdout.write(`${eventsMarkdown(await runBoxScore(opts))}\n`);
  if (only !== 'box') process.stdout.write(`${eventsMarkdown(await runSeasonStats(opts))}\n`);
}
