import { statusDetail } from '../../../domain/score.ts';
import type { Score } from '../../../domain/types.ts';
import type { Outlook } from '../model.ts';
import { binaryOutlook, phi } from '../model.ts';
import type { GameContext, ScoreCore, Segment, Side } from './base.ts';
import { SteppedGame } from './base.ts';
import { num } from './restore.ts';

/** Game seconds from polls closing to the last vote counted. */
const COUNT_SECONDS = 3 * 3600;

/**
 * A two-sided contest decided by a vote count. The winner and the final shares are drawn when
 * counting starts; the reported shares wander towards them as the reporting share rises.
 */
export class PoliticsGame extends SteppedGame {
  reporting = 0;
  readonly share: Record<Side, number> = { away: 50, home: 50 };
  private finalHomeShare: number;
  private elapsed = 0;

  constructor(ctx: GameContext) {
    super(ctx);
    const homeWins = ctx.rng.chance(phi(ctx.params.strengthEffect * ctx.expected.edge));
    const margin = 0.5 + Math.abs(4 * ctx.rng.normal());
    this.finalHomeShare = 50 + (homeWins ? margin : -margin) / 2;
  }

  protected step(): number {
    const { rng } = this.ctx;
    if (this.elapsed > 0) {
      this.reporting = Math.min(100, Math.round((this.elapsed / COUNT_SECONDS) * 100));
      const noise = rng.normal() * 3 * (1 - this.reporting / 100);
      const home = Math.round((this.finalHomeShare + noise) * 10) / 10;
      this.share.home = this.reporting >= 100 ? Math.round(this.finalHomeShare * 10) / 10 : home;
      this.share.away = Math.round((100 - this.share.home) * 10) / 10;
      this.lastPlay = `${this.reporting}% reporting`;
      this.bump();
      if (this.reporting >= 100) {
        this.finish();
        return 0;
      }
    }
    const wait = rng.between(300, 600);
    this.elapsed += wait;
    return wait;
  }

  private leader(): Side | null {
    if (this.share.home === this.share.away) return null;
    return this.share.home > this.share.away ? 'home' : 'away';
  }

  score(): ScoreCore {
    const final = this.status === 'STATUS_FINAL';
    const leader = this.leader();
    return {
      event_status: this.status,
      score_away: 0,
      score_home: 0,
      winner_away: final && leader === 'away' ? 1 : 0,
      winner_home: final && leader === 'home' ? 1 : 0,
      score_away_by_period: [],
      score_home_by_period: [],
      game_clock: 0,
      display_clock: '0:00',
      game_period: 0,
      event_status_detail: statusDetail({ scheme: 'none', status: this.status, period: 0, clock: 0 }),
    };
  }

  liveState(): Record<string, unknown> {
    return {
      reporting_pct: this.reporting,
      vote_share_away: this.share.away,
      vote_share_home: this.share.home,
      leader: this.leader(),
      last_play: this.lastPlay,
    };
  }

  remaining(): number {
    return this.status === 'STATUS_FINAL' ? 0 : 1 - this.reporting / 100;
  }

  outlook(segment: Segment): Outlook | undefined {
    if (segment !== 'game' || this.status === 'STATUS_FINAL') return undefined;
    // Before any count the prior decides; as votes come in the reported lead takes over.
    const uncertainty = 3 * (1 - this.reporting / 100);
    const prior = this.ctx.params.strengthEffect * this.ctx.expected.edge;
    const lead = this.reporting > 0 ? (this.share.home - this.share.away) / 2 : 0;
    return binaryOutlook(phi((lead + prior * uncertainty) / (uncertainty + 0.3)));
  }

  restore(_score: Score, state: Record<string, unknown>): void {
    this.reporting = num(state.reporting_pct, 0);
    this.elapsed = (this.reporting / 100) * COUNT_SECONDS;
    this.share.away = num(state.vote_share_away, 50);
    this.share.home = num(state.vote_share_home, 50);
    // Keep the count heading where it was reported to be heading.
    if (this.reporting > 0) this.finalHomeShare = this.share.home;
  }
}
