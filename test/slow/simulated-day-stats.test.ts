import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { generateKey, newKeyRecord } from '../../src/access/keys.ts';
import type { EventState } from '../../src/board/event-state.ts';
import { GAME_STARTED } from '../../src/board/event-state.ts';
import { type Discipline, SEASON_TYPES, SPORTS } from '../../src/catalog/sports.ts';
import { simulatorCatalog } from '../../src/catalog/simulator-catalog.ts';
import { statByName } from '../../src/catalog/stats.ts';
import { homeLeagueOf } from '../../src/catalog/teams/index.ts';
import { compose, type Services } from '../../src/compose.ts';
import { resolveServeConfig } from '../../src/config.ts';
import type { PlayInput } from '../../src/domain/plays.ts';
import { Simulator } from '../../src/feeds/simulator/index.ts';
import type { LedgerSink, UpdateBatch } from '../../src/ledger/updates.ts';
import { SCORING_STATS } from '../helpers/fixtures.ts';

/**
 * Issue "stats, plays, futures", consistency over simulated days: the simulator's history (three
 * days back, one sport id per discipline) committed by the real ledger of the composition root at
 * an injected clock, then read through the served routes. For every final game: its plays add up
 * to its score, its box score to its plays' credits; for every team that played one: its season
 * totals (team and players) are the sums of its started games' boxes; every player a box names is
 * a player of `/api/v2/players/{id}` and of its team's roster.
 */

const NOW = Date.parse('2026-11-23T09:00:00Z');
/** One sport id per discipline that has games over the days before NOW (7 MMA, 38 tennis: solo athletes). */
const SPORT_IDS = [1, 3, 4, 6, 7, 11, 21, 22, 38];
let services: Services;
let dataDir: string;
let key: string;
/** Each event's plays as the feed sent them to the ledger, in order. */
const sent = new Map<string, PlayInput[]>();

before(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'oddsbase-simday-'));
  const config = resolveServeConfig({ port: 0, dataDir, simulator: false, logLevel: 'silent', metricsPort: 0 }, {});
  services = await compose(config, { now: () => NOW });
  const { ledger, board } = services;
  // What the command writes before its simulator starts: the catalog the simulator plays with.
  await ledger.apply({
    at: new Date(NOW).toISOString(),
    updates: simulatorCatalog().map((record) => ({ kind: 'catalog', record })),
  });
  const sink: LedgerSink = {
    apply(batch: UpdateBatch) {
      for (const u of batch.updates) {
        if (u.kind !== 'play') continue;
        const list = sent.get(u.event_id) ?? [];
        list.push(u.play);
        sent.set(u.event_id, list);
      }
      return ledger.apply(batch);
    },
  };
  await new Simulator({ seed: 11, speed: 1, sink, state: board, now: () => NOW, sportIds: SPORT_IDS }).backfill();
  key = generateKey();
  await services.keys.insert(
    newKeyRecord(key, 'enterprise', { custom: JSON.stringify({ burstPerSecond: 1_000_000 }) }),
  );
});

after(async () => {
  await services.close();
  rmSync(dataDir, { recursive: true, force: true });
});

async function get(path: string): Promise<any> {
  const res = await services.app.inject({ method: 'GET', url: path, headers: { 'x-service-key': key } });
  assert.equal(res.statusCode, 200, `${path}: ${res.body.slice(0, 300)}`);
  return res.json();
}

const finals = (): EventState[] =>
  [...services.board.events.values()].filter(
    (e) => e.info.score?.event_status === 'STATUS_FINAL' && (e.game?.plays ?? 0) > 0,
  );
const disciplineOf = (sportId: number): Discipline => SPORTS.find((s) => s.sport_id === sportId)!.discipline;

interface BoxGroup {
  /** Team rows and season rows carry `stat_id`; a player's game row its `stat` definition. */
  stats: { stat_id?: number; stat?: { id: number }; value: string }[];
}
/** `${team or player id}:${stat id}` -> value, from a served box or season body. */
function values(groups: (BoxGroup & { id: number })[]): Map<string, number> {
  const out = new Map<string, number>();
  for (const g of groups) for (const r of g.stats) out.set(`${g.id}:${r.stat_id ?? r.stat!.id}`, Number(r.value));
  return out;
}
const teamGroups = (body: (BoxGroup & { team: { team_id: number } })[]) =>
  body.map((g) => ({ ...g, id: g.team.team_id }));
const playerGroups = (body: (BoxGroup & { player: { id?: number; player_id?: number; team_id?: number } })[]) =>
  body.map((g) => ({ ...g, id: (g.player.id ?? g.player.player_id)! }));

function add(into: Map<string, number>, from: Map<string, number>): void {
  for (const [k, v] of from) into.set(k, (into.get(k) ?? 0) + v);
}

test('the simulated days have final games with plays in every discipline but politics', () => {
  const disciplines = new Set(finals().map((e) => disciplineOf(e.info.sport_id)));
  for (const d of ['football', 'baseball', 'basketball', 'hockey', 'mma', 'soccer', 'cricket', 'tennis']) {
    assert.ok(disciplines.has(d as Discipline), d);
  }
  assert.ok(finals().length > 40, `${finals().length} finals`);
});

test('every final game: the served plays are the plays sent, numbered 1.., and end on the final score', async () => {
  for (const ev of finals()) {
    const id = ev.info.event_id;
    const plays: { sequence: number; description: string; score_away: number; score_home: number }[] = [];
    let path = `/api/v2/events/${id}/plays?limit=500`;
    for (;;) {
      const page = await get(path);
      plays.push(...page.plays);
      if (page.meta.next_before_sequence === null || page.plays.length === 0) break;
      path = `/api/v2/events/${id}/plays?limit=500&before_sequence=${page.meta.next_before_sequence}`;
    }
    plays.reverse();
    const fed = sent.get(id)!;
    assert.deepEqual(
      plays.map((p) => p.sequence),
      fed.map((_, i) => i + 1),
      id,
    );
    assert.deepEqual(
      plays.map((p) => [p.description, p.score_away, p.score_home]),
      fed.map((p) => [p.description, p.score_away, p.score_home]),
      id,
    );
    for (let i = 1; i < plays.length; i++) {
      assert.ok(
        plays[i]!.score_away >= plays[i - 1]!.score_away && plays[i]!.score_home >= plays[i - 1]!.score_home,
        id,
      );
    }
    const score = ev.info.score!;
    assert.deepEqual([plays.at(-1)!.score_away, plays.at(-1)!.score_home], [score.score_away, score.score_home], id);
  }
});

test('every final game: the served box is the sum of its plays’ credits, and its scoring stats are the score', async () => {
  for (const ev of finals()) {
    const id = ev.info.event_id;
    const sportId = ev.info.sport_id;
    const teams = new Map<string, number>();
    const players = new Map<string, number>();
    for (const p of sent.get(id)!) {
      for (const c of p.credits) {
        const stat = statByName(sportId, c.stat)!;
        if (c.player_id !== undefined && stat.scope !== 'team')
          add(players, new Map([[`${c.player_id}:${stat.id}`, c.n]]));
        if (stat.scope !== 'player') add(teams, new Map([[`${c.team_id}:${stat.id}`, c.n]]));
      }
    }
    const teamBox = await get(`/api/v2/events/${id}/stats`);
    const playerBox = await get(`/api/v2/events/${id}/players/stats`);
    for (const g of [...teamBox, ...playerBox]) assert.equal(g.meta.complete, true, id);
    assert.deepEqual(values(teamGroups(teamBox)), teams, id);
    assert.deepEqual(values(playerGroups(playerBox)), players, id);
    const scoring = SCORING_STATS[disciplineOf(sportId)];
    if (scoring.length === 0) continue;
    const [away, home] = ev.info.teams;
    const scored = (teamId: number) =>
      scoring.reduce((n, name) => n + (teams.get(`${teamId}:${statByName(sportId, name)!.id}`) ?? 0), 0);
    assert.deepEqual(
      [scored(away!.team_id), scored(home!.team_id)],
      [ev.info.score!.score_away, ev.info.score!.score_home],
      id,
    );
  }
});

test('every team of a final game: its season totals are the sums of its started games’ served boxes', async () => {
  // team id -> `${year}:${season type name}` seasons it has a final game in.
  const seasons = new Map<number, Set<string>>();
  for (const ev of finals()) {
    for (const t of ev.info.teams) {
      const set = seasons.get(t.team_id) ?? new Set();
      set.add(`${ev.info.schedule.season_year}:${ev.info.schedule.season_type}`);
      seasons.set(t.team_id, set);
    }
  }
  let checked = 0;
  for (const [teamId, list] of seasons) {
    const league = homeLeagueOf(teamId)!;
    for (const season of list) {
      const [yearText, typeName] = [season.slice(0, 4), season.slice(5)];
      const seasonType = SEASON_TYPES.find((t) => t.name === typeName)!.season_type_id;
      // The games the season counts: the team's started games of its home league's sport ids.
      const games = [...services.board.events.values()].filter(
        (e) =>
          league.sport_ids.includes(e.info.sport_id) &&
          e.info.teams.some((t) => t.team_id === teamId) &&
          String(e.info.schedule.season_year) === yearText &&
          e.info.schedule.season_type === typeName &&
          GAME_STARTED.has(e.info.score?.event_status ?? '') &&
          (e.game?.version ?? 0) > 0,
      );
      const teamSum = new Map<string, number>();
      const playerSum = new Map<string, number>();
      for (const g of games) {
        add(teamSum, values(teamGroups(await get(`/api/v2/events/${g.info.event_id}/stats`))));
        const players = playerGroups(await get(`/api/v2/events/${g.info.event_id}/players/stats`));
        add(playerSum, values(players.filter((p) => p.player.team_id === teamId)));
      }
      const query = `year=${yearText}&season_type=${seasonType}`;
      const teamSeason = await get(`/api/v2/teams/${teamId}/stats?${query}`);
      assert.deepEqual(
        values(teamGroups(teamSeason)),
        new Map([...teamSum].filter(([k]) => k.startsWith(`${teamId}:`))),
        `${teamId} ${season}`,
      );
      const playerSeason = await get(`/api/v2/teams/${teamId}/players/stats?${query}`);
      assert.deepEqual(values(playerGroups(playerSeason)), playerSum, `${teamId} ${season} players`);
      checked++;
    }
  }
  assert.ok(checked > 40, `${checked} team seasons checked`);
});

test('every player a final game’s box names is a player record and on its team’s roster', async () => {
  const seen = new Map<number, { name: string; team: number }>();
  for (const ev of finals()) {
    for (const g of await get(`/api/v2/events/${ev.info.event_id}/players/stats`)) {
      seen.set(g.player.id, { name: g.player.display_name, team: g.player.team_id });
    }
  }
  const rosters = new Map<number, Set<number>>();
  let solo = 0;
  for (const [id, { name, team }] of seen) {
    const record = await get(`/api/v2/players/${id}`);
    assert.deepEqual([record.player_id, record.name, record.team_id], [id, name, team], String(id));
    if (!rosters.has(team))
      rosters.set(
        team,
        new Set((await get(`/api/v2/teams/${team}/players`)).players.map((p: { player_id: number }) => p.player_id)),
      );
    assert.ok(rosters.get(team)!.has(id), `${id} on the roster of ${team}`);
    if ([7, 38].includes(record.sport_id)) solo++;
  }
  assert.ok(solo > 4, `${solo} athletes of individual sports checked`);
});
