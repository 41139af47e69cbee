/**
 * Plays and the stat credits they carry. A feed describes each play with what it adds to the box
 * score; the ledger numbers the plays of an event (1, 2, ...) and turns the credits into the stat
 * rows they change, so the box score is the sum of the plays by construction. A feed that has the
 * box score itself rather than the credits (a mirror) sends plays without credits and sets the
 * values (the ledger's `box_score` update).
 */

/** What one play adds to one stat: a team's, or a player's (and, by the stat's scope, the team's). */
export interface StatCredit {
  team_id: number;
  /** Absent: the team's own stat (extras, team points). */
  player_id?: number;
  /** The stat's name in the sport's catalog (src/catalog/stats.ts). */
  stat: string;
  n: number;
}

/** A play as a feed hands it to the ledger. */
export interface PlayInput {
  period: number;
  /** Seconds, as the event's score counts them (countdown, or soccer's elapsed match time). */
  game_clock: number;
  display_clock: string;
  description: string;
  /** The team that made the play; null for neutral plays (a period's end, a lineup). */
  team_id: number | null;
  /** The score after the play. */
  score_away: number;
  score_home: number;
  /** Player ids involved, most important first (the same ids as player-prop participants). */
  players: number[];
  credits: StatCredit[];
  /** Who the players named in `players` and `credits` are: their box-score lines show it. */
  people: Person[];
  /**
   * The play's number as its source numbers it (a mirror keeps the upstream's): it must be the
   * event's next, since plays are numbered 1, 2, ... without a gap. Omitted: the next.
   */
  sequence?: number;
  /** When the play happened, as its source says; omitted: the time of the batch that carries it. */
  created_at?: string;
}

export interface Person {
  id: number;
  display_name: string;
  position: string;
}

/** What a served play and a feed's play both say of it: everything but its number, time and credits. */
export type PlayFields = Omit<PlayInput, 'credits' | 'people' | 'sequence' | 'created_at'>;

/** The shared fields of `p`, copied one by one in the served field order (a play may carry others). */
export function playFields(p: PlayFields): PlayFields {
  return {
    period: p.period,
    game_clock: p.game_clock,
    display_clock: p.display_clock,
    description: p.description,
    team_id: p.team_id,
    score_away: p.score_away,
    score_home: p.score_home,
    players: p.players,
  };
}

/** A play as served (docs/spec-gaps.md: Plays): the feed's play without its credits and people. */
export type Play = {
  event_id: string;
  /** 1 for the event's first play, then one more per play. */
  sequence: number;
} & PlayFields & {
    /** When the play happened (the feed's `created_at`, else the time of the batch that carried it). */
    created_at: string;
  };
