import type { OddsbaseClient } from './client.ts';
import { Emitter } from './emitter.ts';
import type { MultiplexStream } from './multiplex.ts';
import type { StatRef } from './types.ts';

/** One value of a box: a team's or a player's stat. Values stay strings, as the server sends them. */
export interface BoxValue {
  stat_id: number;
  stat: StatRef;
  value: string;
}

/** The merged box score of one event. */
export interface GameBox {
  event_id: string;
  complete: boolean;
  /** team_id to stat_id to value. */
  teams: Map<number, Map<number, BoxValue>>;
  /** player_id to its team and stat_id to value. */
  players: Map<number, { team_id?: number; stats: Map<number, BoxValue> }>;
}

interface GameStatsFrame {
  event_id: string;
  complete?: boolean;
  team_stats?: { team_id: number; stats: { team_id: number; stat_id: number; stat: StatRef; value: string }[] }[];
  player_stats?: {
    player_id: number;
    team_id?: number;
    stats: { player_id: number; stat_id: number; stat: StatRef; value: string }[];
  }[];
}

export interface GameStatsEvents extends Record<string, unknown[]> {
  /** The box changed (a merged frame, a new baseline, completion). */
  box: [GameBox];
  /** A baseline fetch failed; the last box is kept and the fetch is tried again on the next frame. */
  error: [Error];
}

type State = { kind: 'buffering'; frames: GameStatsFrame[] } | { kind: 'live' };

/**
 * The spec's game-stats procedure over a `stats` (or `live`) subscription: frames are row deltas,
 * so every event's box starts from REST. On first sight of an event, on reconnect without a replay,
 * on a gap and on an invalidation frame, frames are buffered while both REST boxes are fetched;
 * the baseline replaces the box and the buffered frames are applied in order, then frames apply as
 * they come. A completion frame marks the box complete (repeats change nothing).
 */
export class GameStatsMerger extends Emitter<GameStatsEvents> {
  private readonly boxes = new Map<string, GameBox>();
  private readonly states = new Map<string, State>();

  constructor(
    private readonly client: OddsbaseClient,
    stream: MultiplexStream,
    private readonly subscriptionId: string,
  ) {
    super();
    stream.on('delta', (m) => {
      if (m.id === subscriptionId && m.kind === 'game_stats') this.frame(m.data as GameStatsFrame);
    });
    stream.on('resync', ({ id }) => {
      if (id === subscriptionId) for (const eventId of this.boxes.keys()) this.rebase(eventId);
    });
  }

  box(eventId: string): GameBox | undefined {
    return this.boxes.get(eventId);
  }

  /** Fetches the REST baseline of an event now (e.g. a subscription's event_ids before any frame). */
  track(eventId: string): Promise<void> {
    return this.rebase(eventId);
  }

  private frame(f: GameStatsFrame): void {
    const state = this.states.get(f.event_id);
    const invalidation = f.team_stats === undefined && f.player_stats === undefined && f.complete !== true;
    if (invalidation) {
      void this.rebase(f.event_id);
      return;
    }
    if (!state) {
      // First sight: this frame is the first buffered one, and the baseline is fetched.
      void this.rebase(f.event_id, [f]);
      return;
    }
    if (state.kind === 'buffering') {
      state.frames.push(f);
      return;
    }
    this.apply(f);
    this.emit('box', this.boxes.get(f.event_id)!);
  }

  private async rebase(eventId: string, first: GameStatsFrame[] = []): Promise<void> {
    const held = this.states.get(eventId);
    if (held?.kind === 'buffering') {
      held.frames.push(...first);
      return;
    }
    const state: State = { kind: 'buffering', frames: [...first] };
    this.states.set(eventId, state);
    try {
      const [teams, players] = await Promise.all([
        this.client.teamGameStats(eventId),
        this.client.playerGameStats(eventId),
      ]);
      const box: GameBox = { event_id: eventId, complete: false, teams: new Map(), players: new Map() };
      for (const g of teams.data) {
        box.complete ||= g.meta.complete;
        box.teams.set(
          g.team.team_id,
          new Map(g.stats.map((r) => [r.stat_id, { stat_id: r.stat_id, stat: r.stat, value: r.value }])),
        );
      }
      for (const g of players.data) {
        box.complete ||= g.meta.complete;
        box.players.set(g.player.id, {
          team_id: g.player.team_id,
          stats: new Map(g.stats.map((r) => [r.stat.id, { stat_id: r.stat.id, stat: r.stat, value: r.value }])),
        });
      }
      this.boxes.set(eventId, box);
      this.states.set(eventId, { kind: 'live' });
      for (const f of state.frames) this.apply(f);
      this.emit('box', box);
    } catch (err) {
      // The cached box stays (spec: keep cached results on a 503); the next frame tries again.
      this.states.delete(eventId);
      this.emit('error', err instanceof Error ? err : new Error(String(err)));
    }
  }

  private apply(f: GameStatsFrame): void {
    const box = this.boxes.get(f.event_id);
    if (!box) return;
    if (f.complete === true) box.complete = true;
    for (const t of f.team_stats ?? []) {
      let m = box.teams.get(t.team_id);
      if (!m) box.teams.set(t.team_id, (m = new Map()));
      for (const r of t.stats) m.set(r.stat_id, { stat_id: r.stat_id, stat: r.stat, value: r.value });
    }
    for (const p of f.player_stats ?? []) {
      let entry = box.players.get(p.player_id);
      if (!entry) box.players.set(p.player_id, (entry = { team_id: p.team_id, stats: new Map() }));
      for (const r of p.stats) entry.stats.set(r.stat_id, { stat_id: r.stat_id, stat: r.stat, value: r.value });
    }
  }
}
