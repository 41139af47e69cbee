import type { AccessControl } from '../access/access-control.ts';
import type { Connection } from './connection.ts';
import { StreamError } from './errors.ts';
import { type Channel, CHANNELS, isChannel } from './channels.ts';
import { isSubscriptionId, subscriptionId, subscriptionParams } from './params.ts';
import type { StreamHub } from './stream-hub.ts';
import type { Subscription } from './subscription.ts';

/** What a channel needs beyond WebSocket access (spec: Authentication 5). */
const NEEDS_LIVE_STATE: ReadonlySet<Channel> = new Set(['plays', 'stats', 'live', 'live_game_state', 'game_state']);

/**
 * The multiplexed endpoint's protocol: client actions subscribe, unsubscribe, snapshot, resync and
 * usage, answered in order on the connection's queue. Subscription lifecycle (spec: States):
 * subscribe → `subscribed`; with snapshot: snapshot frames, `snapshot_complete`, then deltas; with
 * resume_from: the missed deltas, `resume_complete`, then live ones; with resume (plays by sequence):
 * the missed plays, `resume_complete`, then live ones; unsubscribe → `unsubscribed`. Snapshots and
 * replays of one subscription run one after another, in the order asked. Errors are in-band
 * (`error` with a code from errors.ts) and leave the connection open.
 */
export class Multiplex {
  /** The snapshot or replay of each subscription that runs or waits last (`inTurn`). */
  private readonly running = new WeakMap<Subscription, Promise<void>>();

  constructor(
    private readonly hub: StreamHub,
    private readonly access: AccessControl | undefined,
    /** Where an unexpected failure goes (the log); the client gets `internal_error`. */
    private readonly onError: (err: unknown) => void,
  ) {}

  /** A text message within the bounds of intake.ts (size, depth, rate), checked by the caller. */
  onMessage(conn: Connection, raw: string): void {
    let msg: Record<string, unknown>;
    try {
      const parsed: unknown = JSON.parse(raw);
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not an object');
      msg = parsed as Record<string, unknown>;
    } catch {
      return conn.error(null, 'bad_request', 'a message must be a JSON object with an action');
    }
    // Errors name the subscription only when its id is one: never text a client put in its place.
    const id = isSubscriptionId(msg.id) ? msg.id : null;
    try {
      switch (msg.action) {
        case 'subscribe':
          return this.subscribe(conn, msg);
        case 'unsubscribe':
          return this.unsubscribe(conn, msg);
        case 'snapshot':
          return this.snapshot(conn, msg);
        case 'resync':
          return this.resync(conn, msg);
        case 'usage':
          return this.usage(conn, id);
        default:
          throw new StreamError('bad_request', 'action must be subscribe, unsubscribe, snapshot, resync or usage');
      }
    } catch (err) {
      if (err instanceof StreamError) return conn.error(id, err.code, err.message);
      this.onError(err);
      conn.error(id, 'internal_error', 'the server could not handle this message');
    }
  }

  private subscribe(conn: Connection, msg: Record<string, unknown>): void {
    const id = subscriptionId(msg.id);
    if (!isChannel(msg.channel)) {
      throw new StreamError('unknown_channel', `channel must be one of ${CHANNELS.join(', ')}`);
    }
    const channel = msg.channel;
    if (conn.subs.has(id)) throw new StreamError('duplicate_id', `subscription ${id} exists on this connection`);
    const scope = conn.scope;
    if (NEEDS_LIVE_STATE.has(channel) && !scope.liveGameState) {
      throw new StreamError(
        'forbidden',
        `the ${channel} channel needs the live game state entitlement (Ultra tier or above)`,
      );
    }
    if (channel === 'futures' && !scope.futures) {
      throw new StreamError('forbidden', 'the futures channel needs the futures entitlement (Ultra tier or above)');
    }
    const account = conn.account;
    const cap = account?.entitlements.wsSubscriptionsPerConnection;
    if (cap !== undefined && conn.subs.size >= cap) {
      throw new StreamError('subscription_limit', `the plan allows ${cap} subscriptions per connection`);
    }
    const params = subscriptionParams(channel, msg.params, scope);
    if (params.date !== undefined && account && this.access) {
      const denial = this.access.checkHistoryWindow(account, params.date);
      if (denial) throw new StreamError('forbidden', String(denial.body.error));
    }
    const sub = this.hub.subscribe(conn, id, channel, params);
    // Held from here until the snapshot or the replay is sent, so no delta overtakes it.
    if (params.resumeFrom || params.resumePlays || params.snapshot) sub.held = [];
    conn.send(
      JSON.stringify({
        type: 'subscribed',
        id,
        channel,
        params: {
          sport_ids: list(params.sportIds),
          event_ids: list(params.eventIds),
          market_ids: list(params.marketIds),
          affiliate_ids: list(params.affiliateIds),
          main_line: params.mainLine,
          snapshot: params.snapshot,
          conflate: params.conflate,
          participant_type: params.participantType ?? null,
          event_status: list(params.eventStatuses ?? null),
          limit: params.playsLimit ?? null,
        },
        position: this.hub.position,
      }),
    );
    const from = params.resumeFrom;
    const plays = params.resumePlays;
    if (from) this.inTurn(sub, () => this.hub.resume(conn, sub, from));
    else if (plays) this.inTurn(sub, () => this.hub.resumePlays(conn, sub, plays));
    else if (params.snapshot) this.inTurn(sub, () => this.hub.snapshot(conn, sub));
  }

  /**
   * Runs a snapshot or a replay of `sub` after those asked before it have finished: one at a time
   * per subscription (each holds the live frames and releases them past its own position), in the
   * order asked, none refused. One asked after an unsubscribe does not run.
   */
  private inTurn(sub: Subscription, run: () => Promise<void>): void {
    const before = this.running.get(sub);
    const next = before ? before.then(() => (sub.closed ? undefined : run())) : run();
    this.running.set(sub, next);
    void next.finally(() => {
      if (this.running.get(sub) === next) this.running.delete(sub);
    });
  }

  private existing(conn: Connection, msg: Record<string, unknown>) {
    const id = subscriptionId(msg.id);
    const sub = conn.subs.get(id);
    if (!sub) throw new StreamError('unknown_subscription', `no subscription ${id} on this connection`);
    return sub;
  }

  private unsubscribe(conn: Connection, msg: Record<string, unknown>): void {
    const sub = this.existing(conn, msg);
    this.hub.removeSubscription(conn, sub);
    conn.send(JSON.stringify({ type: 'unsubscribed', id: sub.id }));
  }

  /**
   * A fresh snapshot on an existing subscription, without reconnecting, at any time (spec): while
   * another snapshot or replay of it runs, after that one.
   */
  private snapshot(conn: Connection, msg: Record<string, unknown>): void {
    const sub = this.existing(conn, msg);
    this.inTurn(sub, () => this.hub.snapshot(conn, sub));
  }

  /**
   * resync: `resync_ack`, then a replay from `resume_from` or of the plays after `resume`'s
   * sequences when given (resume_complete), else a fresh snapshot (snapshot_complete); after any
   * snapshot or replay of the subscription asked before it.
   */
  private resync(conn: Connection, msg: Record<string, unknown>): void {
    const sub = this.existing(conn, msg);
    const asked = subscriptionParams(
      sub.channel,
      {
        event_ids: sub.params.eventIds ? [...sub.params.eventIds] : undefined,
        resume_from: msg.resume_from,
        resume: msg.resume,
      },
      conn.scope,
    );
    const from = asked.resumeFrom;
    const plays = asked.resumePlays;
    conn.send(JSON.stringify({ type: 'resync_ack', id: sub.id, position: this.hub.position }));
    this.inTurn(sub, () =>
      from
        ? this.hub.resume(conn, sub, from)
        : plays
          ? this.hub.resumePlays(conn, sub, plays)
          : this.hub.snapshot(conn, sub),
    );
  }

  /** In-band usage (free, spec: Metering 3): the same figures as the REST usage headers. */
  private usage(conn: Connection, id: string | null): void {
    const account = conn.account;
    if (!account || !this.access) {
      conn.send(JSON.stringify({ type: 'usage', id, metered: false }));
      return;
    }
    const h: Record<string, string> = {};
    this.access.meter(account, 0, { header: (name, value) => (h[name] = value) });
    const num = (name: string) => (h[name] === undefined ? undefined : Number(h[name]));
    conn.send(
      JSON.stringify({
        type: 'usage',
        id,
        tier: h['x-tier'],
        used: num('x-datapoints-used'),
        remaining: num('x-datapoints-remaining'),
        limit: num('x-datapoints-limit'),
        period: h['x-datapoints-period'],
        reset: h['x-datapoints-reset'],
        connections: this.hub.connectionsOf(account.keyHash),
        connection_limit: account.entitlements.wsConnections,
        subscriptions: conn.subs.size,
        subscription_limit: account.entitlements.wsSubscriptionsPerConnection,
      }),
    );
  }
}

const list = <T>(s: ReadonlySet<T> | null): T[] | null => (s ? [...s] : null);
