import { createHash } from 'node:crypto';
import type { TestServer } from './server.ts';

/**
 * The answers of every route that lists catalog things (V2 and V1), as a SHA-256 of each body's
 * bytes by path: the sports, books, market definitions and season types, every sport's teams,
 * conferences and divisions, and every team's detail and roster with its first player's record.
 * test/fixtures/catalog-answers.json holds them as the code's tables gave them before the catalog
 * became rows; a server started on an ingest feed (no simulator, so no team records) must match.
 */
export async function catalogAnswers(s: TestServer): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  const key = await s.newKey('enterprise', { v1: true, custom: JSON.stringify({ burstPerSecond: 1_000_000 }) });
  const read = async (path: string): Promise<any> => {
    const res = await fetch(`${s.url}${path}`, { headers: { 'X-Service-Key': key } });
    const text = await res.text();
    out[path] = `${res.status} ${createHash('sha256').update(text).digest('hex')}`;
    return res.status === 200 ? JSON.parse(text) : undefined;
  };
  const sports = (await read('/api/v2/sports')) as { sports: { sport_id: number }[] };
  for (const p of ['affiliates', 'affiliates?include=regions', 'sportsbooks', 'markets', 'season_types'])
    await read(`/api/v2/${p}`);
  for (const p of ['sports', 'affiliates', 'sportsbooks?include=regions', 'season_types', 'conferences', 'divisions'])
    await read(`/api/v1/${p}`);
  const teams = new Set<number>();
  for (const { sport_id } of sports.sports) {
    const listed = (await read(`/api/v2/sports/${sport_id}/teams`)) as { teams: { team_id: number }[] } | undefined;
    for (const t of listed?.teams ?? []) teams.add(t.team_id);
    for (const p of ['conferences', 'divisions']) await read(`/api/v2/sports/${sport_id}/${p}`);
    for (const p of ['teams', 'conferences', 'divisions']) await read(`/api/v1/sports/${sport_id}/${p}`);
  }
  for (const teamId of [...teams].sort((a, b) => a - b)) {
    await read(`/api/v2/teams/${teamId}`);
    const roster = (await read(`/api/v2/teams/${teamId}/players`)) as { players: { player_id: number }[] };
    const first = roster.players[0];
    if (first) await read(`/api/v2/players/${first.player_id}`);
  }
  // Ids no catalog holds: the 404s stay as they were.
  for (const p of ['/api/v2/sports/9/teams', '/api/v2/teams/1', '/api/v2/players/1']) await read(p);
  return out;
}
