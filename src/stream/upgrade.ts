import { type IncomingMessage, type Server, STATUS_CODES } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocketServer } from 'ws';
import { type AccessControl, UPGRADE_URL } from '../access/access-control.ts';
import type { Account, Authenticator } from '../access/authenticator.ts';
import type { FailedKeyChecks } from '../access/failed-auth.ts';
import { hashKey } from '../access/keys.ts';
import { lowestTierWith, upgradeMessage } from '../access/entitlements.ts';
import { scopeOf } from '../access/plan-scope.ts';
import { tierLabel } from '../access/tiers.ts';
import { planUnsupported } from '../http/errors.ts';
import { StreamError } from './errors.ts';
import { MAX_CLIENT_MESSAGE, Multiplex } from './multiplex.ts';
import { marketStreamParams } from './params.ts';
import type { StreamHub } from './stream-hub.ts';
import type { SubscriptionParams } from './subscription.ts';
import type { StreamTokens } from './tokens.ts';

export const MARKETS_PATH = '/api/v2/ws/markets';
export const MULTIPLEX_PATH = '/api/v2/ws';

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
  /** Failed key checks per address, shared with REST: guessing keys is bounded on both paths alike. */
  failedKeys: FailedKeyChecks;
  transport: StreamTransport;
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
 * Serves the two WebSocket endpoints on the HTTP server's upgrade event. Every refusal happens
 * before the handshake, as an HTTP answer with a JSON body in the REST shape: 404 for another
 * path, 403 for plain ws:// behind a proxy, 401 without a valid key or token, 403 without WebSocket
 * access (Ultra and above) or a V2 plan, 429 past the burst ceiling or the plan's connection cap
 * (`WebSocket connection limit reached`), 400 for a bad filter on the markets stream.
 *
 * Keys: the configured key header on both endpoints, the `key` query parameter on the markets
 * stream (spec), and a stream token (`token`) on both, for browsers.
 */
export function attachStreams(server: Server, deps: UpgradeDeps): WebSocketServer {
  const wss = new WebSocketServer({ noServer: true, maxPayload: MAX_CLIENT_MESSAGE });
  const multiplex = new Multiplex(deps.hub, deps.access, deps.onError);
  const header = deps.keyHeader.toLowerCase();
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    upgrade(req, socket, head).catch((err: unknown) => {
      deps.onError(err);
      refuse(socket, refusal(500, { message: 'internal server error' }));
    });
  });

  async function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
    const url = new URL(req.url ?? '/', 'http://stream.invalid');
    const path = url.pathname.replace(/\/+$/, '');
    if (path !== MARKETS_PATH && path !== MULTIPLEX_PATH) {
      return refuse(socket, refusal(404, { message: `no WebSocket endpoint at ${path.slice(0, 60) || '/'}` }));
    }
    const dedicated = path === MARKETS_PATH;
    if (deps.transport === 'proxy' && req.headers['x-forwarded-proto'] !== 'https') {
      return refuse(socket, refusal(403, { error: 'WebSocket connections must use wss://', message: 'WebSocket connections must use wss://' }));
    }
    let account: Account | undefined;
    if (deps.access) {
      const address = req.socket.remoteAddress ?? '';
      const presented = credential(req, url, dedicated);
      if (!presented) return refuse(socket, refusal(401, { message: 'unauthorized' }));
      // As on REST: past its ceiling an address may present only keys that passed before.
      const blocked = presented.key !== undefined ? deps.failedKeys.blockedFor(address) : 0;
      if (blocked > 0 && !deps.failedKeys.isKnown(hashKey(presented.key!))) {
        deps.access.refused('failed_key_ceiling');
        return refuse(socket, refusal(429, { error: 'Too many failed key checks', limit: deps.failedKeys.limits.ceiling }, { 'Retry-After': String(blocked) }));
      }
      const who = presented.token !== undefined ? (deps.tokens.redeem(presented.token) ?? undefined) : await deps.auth.authenticate(presented.key);
      if (!who) {
        const wait = deps.failedKeys.fail(address);
        if (wait > 0) {
          deps.access.refused('failed_key_throttle');
          await new Promise((r) => setTimeout(r, wait));
        }
        return refuse(socket, refusal(401, { message: 'unauthorized' }));
      }
      deps.failedKeys.passed(who.keyHash);
      account = who;
      // As on REST: a record naming no known plan (or undated weekly billing) is served nowhere.
      if (account.unservable) return refuse(socket, refusal(503, planUnsupported(account).body));
      const denied = entitlement(account) ?? admit(deps.access, account);
      if (denied) return refuse(socket, denied);
      const cap = account.entitlements.wsConnections;
      if (deps.hub.connectionsOf(account.keyHash) >= cap) {
        return refuse(
          socket,
          refusal(
            429,
            {
              error: 'WebSocket connection limit reached',
              limit: cap,
              upgrade_url: UPGRADE_URL,
              upgrade_message: `The ${tierLabel(account.tier)} tier allows ${cap} concurrent WebSocket connections`,
            },
            { 'Retry-After': '5' },
          ),
        );
      }
    }
    const scope = scopeOf(account);
    let params: SubscriptionParams | undefined;
    if (dedicated) {
      try {
        params = marketStreamParams(url.searchParams, scope);
      } catch (err) {
        if (!(err instanceof StreamError)) throw err;
        return refuse(socket, refusal(400, { error: err.message, message: err.message }));
      }
    }
    // Nothing asynchronous from the cap check to `open`, so two upgrades cannot both take the last slot.
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = deps.hub.open(ws, socket, account, scope, dedicated);
      if (params) {
        deps.hub.subscribe(conn, '', 'markets', params);
        // The dedicated stream takes no client messages.
        return;
      }
      ws.on('message', (data, isBinary) => {
        if (isBinary) return conn.error(null, 'bad_request', 'messages are JSON text');
        multiplex.onMessage(conn, data.toString());
      });
    });
  }

  /** The upgrade's stream token, or its key (the header; the `key` parameter on the markets stream). */
  function credential(req: IncomingMessage, url: URL, dedicated: boolean): { token?: string; key?: string } | undefined {
    const token = url.searchParams.get('token');
    if (token) return { token };
    const fromHeader = req.headers[header];
    const key = typeof fromHeader === 'string' ? fromHeader : dedicated ? url.searchParams.get('key') : null;
    return key ? { key } : undefined;
  }

  return wss;
}

/** Spec: WebSocket access needs Ultra tier or above; the V2 endpoints a V2 plan. */
function entitlement(account: Account): Refusal | undefined {
  if (!account.entitlements.websocket) {
    return refusal(403, {
      error: upgradeMessage('WebSocket streams', lowestTierWith((e) => e.websocket)),
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

/** An HTTP answer on the raw socket, before any handshake, then the socket ends. */
function refuse(socket: Duplex, r: Refusal): void {
  if (socket.destroyed) return;
  const body = JSON.stringify(r.body);
  const lines = [
    `HTTP/1.1 ${r.status} ${STATUS_CODES[r.status] ?? ''}`,
    'Content-Type: application/json; charset=utf-8',
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
    ...Object.entries(r.headers ?? {}).map(([k, v]) => `${k}: ${v}`),
  ];
  socket.end(`${lines.join('\r\n')}\r\n\r\n${body}`);
}
