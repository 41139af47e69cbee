import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { type AccessControl, UPGRADE_URL } from '../access/access-control.ts';
import { clientAddress } from '../access/client-address.ts';
import type { Account, Authenticator } from '../access/authenticator.ts';
import type { ConnectionSlots } from '../access/connection-slots.ts';
import type { FailedKeyChecks } from '../access/failed-auth.ts';
import { hashKey } from '../access/keys.ts';
import { FOREIGN_ORIGIN_MESSAGE, foreignOrigin, sessionToken } from '../access/session-cookie.ts';
import type { Sessions } from '../access/sessions.ts';
import { lowestTierWith, upgradeMessage } from '../access/entitlements.ts';
import { type MarketKinds, scopeOf } from '../access/plan-scope.ts';
import { tierLabel } from '../catalog/tiers.ts';
import { planUnsupported, quote } from '../projection/errors.ts';
import type { Connection, Endpoint } from './connection.ts';
import { CLOSES, StreamError } from './errors.ts';
import {
  MAX_CLIENT_MESSAGE,
  MAX_FRAME,
  MAX_MESSAGE_DEPTH,
  MessageBucket,
  MESSAGE_RATE,
  messageBytes,
  nestsDeeperThan,
} from './intake.ts';
import { Multiplex } from './multiplex.ts';
import { lineStreamParams, marketStreamParams } from './params.ts';
import type { StreamHub } from './stream-hub.ts';
import type { SubscriptionParams } from './subscription.ts';
import type { StreamTokens } from './tokens.ts';

export const MARKETS_PATH = '/api/v2/ws/markets';
export const MULTIPLEX_PATH = '/api/v2/ws';
/** The V1 counterpart of the markets stream: line sets (docs/spec-gaps.md, The line-based interface). */
export const V1_PATH = '/api/v1/ws';

const ENDPOINTS = new Map<string, Endpoint>([
  [MARKETS_PATH, 'markets'],
  [MULTIPLEX_PATH, 'multiplex'],
  [V1_PATH, 'v1'],
]);

const requestUrl = (req: IncomingMessage) => new URL(req.url ?? '/', 'http://stream.invalid');
const endpointOf = (req: IncomingMessage) => ENDPOINTS.get(requestUrl(req).pathname.replace(/\/+$/, ''));

/**
 * How plain ws:// is treated: `direct` accepts it (the local development default; put TLS in front
 * or configure a certificate for wss://), `proxy` accepts only upgrades a trusted proxy marks as
 * TLS-terminated (`X-Forwarded-Proto: https`) and refuses the rest with 403.
 */
export type StreamTransport = 'direct' | 'proxy';

export interface UpgradeDeps {
  hub: StreamHub;
  auth: Authenticator;
  /** Absent when the server runs without the access layer: every stream open and unmetered. */
  access?: AccessControl;
  keyHeader: string;
  tokens: StreamTokens;
  /** The plan's cap on a key's connections (the hub gives a slot back as its connection closes). */
  slots: ConnectionSlots;
  /** Failed key checks per address, shared with REST: guessing keys is bounded on both paths alike. */
  failedKeys: FailedKeyChecks;
  /** The odds screen's sessions: a page's session cookie opens a stream as its key, same-origin only. */
  sessions?: Sessions;
  transport: StreamTransport;
  /** The current catalog's markets: which a plan without player props leaves out. */
  markets: MarketKinds;
  /** Unexpected failures (logged). */
  onError: (err: unknown) => void;
}

interface Refusal {
  status: number;
  body: Record<string, unknown>;
  headers?: Record<string, string>;
}

const refusal = (status: number, body: Record<string, unknown>, headers?: Record<string, string>): Refusal => ({
  status,
  body,
  headers,
});

/**
 * Serves the three WebSocket endpoints on the HTTP server's upgrade event. Every refusal happens
 * before the handshake, as an HTTP answer with a JSON body in the REST shape: 404 for another
 * path, 403 for plain ws:// behind a proxy, 401 without a valid key or token, 403 without WebSocket
 * access (Ultra and above) or the plan's interface (V2 on /api/v2, V1 on /api/v1/ws), 429 past the
 * burst ceiling or the plan's connection cap (`WebSocket connection limit reached`, counted over
 * all three), 400 for a bad filter on a dedicated stream. Refusals on the V1 path carry `error`,
 * as every V1 error body does.
 *
 * Keys: the configured key header on every endpoint, the `key` query parameter on the dedicated
 * streams (spec), and for browsers a stream token (`token`) or a page's session cookie on all (the
 * cookie from this server's own pages only: 403 otherwise).
 */
export function attachStreams(server: Server, deps: UpgradeDeps): WebSocketServer {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: MAX_FRAME,
    // No subprotocol is spoken: ws would echo the first one offered, and clients put keys there.
    handleProtocols: () => false,
  });
  const multiplex = new Multiplex(deps.hub, deps.access, deps.onError);
  const header = deps.keyHeader.toLowerCase();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrade(req, socket, head).catch((err: unknown) => {
      deps.onError(err);
      refuse(socket, refusal(500, { message: 'internal server error' }), endpointOf(req) === 'v1');
    });
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = requestUrl(req);
    const endpoint = endpointOf(req);
    const v1 = endpoint === 'v1';
    const answer = (r: Refusal): void => refuse(socket, r, v1);
    if (!endpoint) {
      const path = url.pathname.replace(/\/+$/, '');
      return answer(refusal(404, { message: `no WebSocket endpoint at ${quote(path) || '/'}` }));
    }
    const dedicated = endpoint !== 'multiplex';
    if (deps.transport === 'proxy' && req.headers['x-forwarded-proto'] !== 'https') {
      return answer(
        refusal(403, {
          error: 'WebSocket connections must use wss://',
          message: 'WebSocket connections must use wss://',
        }),
      );
    }
    let account: Account | undefined;
    /** The page session that opened it: its cookie, or the one that asked for its stream token. */
    let session: string | undefined;
    /** The plan's entitlement headers (X-Tier …), on refusals after the key check as on REST. */
    const entitled: Record<string, string> = {};
    if (deps.access) {
      const address = clientAddress(req);
      const presented = credential(req, url, dedicated);
      if (!presented) return answer(refusal(401, { message: 'unauthorized' }));
      if (presented.session !== undefined && foreignOrigin(req.headers)) {
        return answer(refusal(403, { error: FOREIGN_ORIGIN_MESSAGE, message: FOREIGN_ORIGIN_MESSAGE }));
      }
      // As on REST: past its ceiling an address may present only keys that passed before.
      const blocked = presented.key !== undefined ? deps.failedKeys.blockedFor(address) : 0;
      if (blocked > 0 && !deps.failedKeys.isKnown(hashKey(presented.key!))) {
        deps.access.refused('failed_key_ceiling');
        return answer(
          refusal(
            429,
            { error: 'Too many failed key checks', limit: deps.failedKeys.limits.ceiling },
            { 'Retry-After': String(blocked) },
          ),
        );
      }
      const redeemed = presented.token !== undefined ? deps.tokens.redeem(presented.token) : undefined;
      const who =
        presented.token !== undefined
          ? (redeemed?.account ?? undefined)
          : presented.session !== undefined
            ? (await deps.sessions?.resolve(presented.session))?.account
            : await deps.auth.authenticate(presented.key);
      if (!who) {
        // A stale session is no guess (its token is too long to guess): nothing to count.
        if (presented.session !== undefined) return answer(refusal(401, { message: 'unauthorized' }));
        const wait = deps.failedKeys.fail(address);
        if (wait > 0) {
          deps.access.refused('failed_key_throttle');
          await new Promise((r) => setTimeout(r, wait));
        }
        return answer(refusal(401, { message: 'unauthorized' }));
      }
      deps.failedKeys.passed(who.keyHash);
      account = who;
      session = presented.session ?? redeemed?.session;
      // As on REST: a record naming no known plan (or undated weekly billing) is served nowhere.
      if (account.unservable) return answer(refusal(503, planUnsupported(account).body));
      deps.access.entitle(account, { header: (name: string, value: string) => (entitled[name] = value) });
      const refuseEntitled = (r: Refusal): void => answer({ ...r, headers: { ...entitled, ...r.headers } });
      const denied = entitlement(account, v1) ?? admit(deps.access, account);
      if (denied) return refuseEntitled(denied);
    }
    const scope = scopeOf(account, deps.markets);
    let params: SubscriptionParams | undefined;
    if (dedicated) {
      try {
        params = v1 ? lineStreamParams(url.searchParams, scope) : marketStreamParams(url.searchParams, scope);
      } catch (err) {
        if (!(err instanceof StreamError)) throw err;
        return answer(refusal(400, { error: err.message, message: err.message }));
      }
    }
    if (account) {
      const cap = account.entitlements.wsConnections;
      // Last, so that no refusal after it must give the slot back; a reservation, so that two
      // upgrades (on any nodes, when shared) cannot both take the last one.
      if (!(await deps.slots.take(account.keyHash, cap))) {
        return answer(
          refusal(
            429,
            {
              error: 'WebSocket connection limit reached',
              limit: cap,
              upgrade_url: UPGRADE_URL,
              upgrade_message: `The ${tierLabel(account.tier)} tier allows ${cap} concurrent WebSocket connections`,
            },
            { ...entitled, 'Retry-After': '5' },
          ),
        );
      }
      if (socket.destroyed) {
        deps.slots.give(account.keyHash);
        return;
      }
    }
    let opened = false;
    wss.handleUpgrade(req, socket, head, (ws) => {
      opened = true;
      const conn = deps.hub.open(ws, socket, account, scope, endpoint);
      conn.session = session;
      if (params) deps.hub.subscribe(conn, '', v1 ? 'lines' : 'markets', params);
      const burst = (account?.entitlements.wsSubscriptionsPerConnection ?? 1000) + MESSAGE_RATE.burstAboveSubscriptions;
      const bucket = new MessageBucket(MESSAGE_RATE.perSecond, burst);
      ws.on('message', (data, isBinary) => intake(conn, bucket, messageBytes(data), isBinary));
    });
    // ws answered the handshake itself (a bad request) without a connection: nothing holds the slot.
    if (!opened && account) deps.slots.give(account.keyHash);
  }

  /**
   * A client message, within bounds checked before it is parsed: past the rate, an error and a
   * close (on the dedicated streams, which take no messages and have no error message, the close
   * alone; below the rate they ignore what they are sent); on the multiplexed endpoint a binary
   * message, one past MAX_CLIENT_MESSAGE or nested past MAX_MESSAGE_DEPTH gets an error and a close.
   */
  function intake(conn: Connection, bucket: MessageBucket, bytes: Buffer, isBinary: boolean): void {
    if (conn.closed) return;
    if (!bucket.take(bytes.length)) {
      if (conn.dedicated) return conn.close(CLOSES.rateLimited);
      const why = `more than ${bucket.perSecond} messages a second after a burst of ${bucket.burst}: reconnect and send fewer`;
      return conn.fail(null, 'rate_limited', why, CLOSES.rateLimited);
    }
    if (conn.dedicated) return;
    if (isBinary) return conn.fail(null, 'unsupported_data', 'messages are JSON text, not binary', CLOSES.binary);
    if (bytes.length > MAX_CLIENT_MESSAGE) {
      return conn.fail(
        null,
        'message_too_large',
        `a message may have at most ${MAX_CLIENT_MESSAGE} bytes`,
        CLOSES.tooLarge,
      );
    }
    const text = bytes.toString('utf8');
    if (nestsDeeperThan(text, MAX_MESSAGE_DEPTH)) {
      return conn.fail(
        null,
        'message_too_deep',
        `a message may nest at most ${MAX_MESSAGE_DEPTH} levels`,
        CLOSES.tooDeep,
      );
    }
    multiplex.onMessage(conn, text);
  }

  /**
   * The upgrade's stream token, or its key (the header; the `key` parameter on the dedicated
   * streams), or else its session cookie.
   */
  function credential(
    req: IncomingMessage,
    url: URL,
    dedicated: boolean,
  ): { token?: string; key?: string; session?: string } | undefined {
    const token = url.searchParams.get('token');
    if (token) return { token };
    const fromHeader = req.headers[header];
    const key = typeof fromHeader === 'string' ? fromHeader : dedicated ? url.searchParams.get('key') : null;
    if (key) return { key };
    const session = deps.sessions && sessionToken(req.headers);
    return session ? { session } : undefined;
  }

  return wss;
}

/** Spec: WebSocket access needs Ultra tier or above; the V2 endpoints a V2 plan, the V1 stream a V1 plan. */
function entitlement(account: Account, v1: boolean): Refusal | undefined {
  if (!account.entitlements.websocket) {
    return refusal(403, {
      error: upgradeMessage(
        'WebSocket streams',
        lowestTierWith((e) => e.websocket),
        true,
      ),
      upgrade_url: UPGRADE_URL,
    });
  }
  if (v1) {
    return account.v1
      ? undefined
      : refusal(403, {
          error: 'The V1 stream needs a V1 subscription; V2 plans use /api/v2/ws/markets',
          upgrade_url: UPGRADE_URL,
        });
  }
  if (!account.v2) {
    return refusal(403, { error: 'The V2 streams need a V2 subscription', upgrade_url: UPGRADE_URL });
  }
  return undefined;
}

/** The upgrade counts as a request against the burst ceiling and the caps, as a REST call does. */
function admit(access: AccessControl, account: Account): Refusal | undefined {
  const denial = access.admit(account, true);
  return denial && refusal(denial.status, denial.body, denial.headers);
}

/**
 * An HTTP answer on the raw socket, before any handshake, then the socket ends. On the V1 path a
 * body with only `message` gets `error` with the same text (a V1 client looks for that key).
 */
function refuse(socket: Duplex, r: Refusal, v1: boolean): void {
  if (socket.destroyed) return;
  const withError = v1 && typeof r.body.error !== 'string' && typeof r.body.message === 'string';
  const body = JSON.stringify(withError ? { error: r.body.message, ...r.body } : r.body);
  const lines = [
    `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
