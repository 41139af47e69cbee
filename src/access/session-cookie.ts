import type { IncomingHttpHeaders } from 'node:http';

/** The cookie that carries a page's session token (HttpOnly, SameSite=Strict, Path=/). */
export const SESSION_COOKIE = 'oddsbase_session';

export const FOREIGN_ORIGIN_MESSAGE = "a session cookie is accepted only from this server's own pages";

/**
 * The session token a request's cookies carry, if any. Read here rather than through
 * @fastify/cookie, whose parser is loaded asynchronously by its plugin and which the WebSocket
 * upgrades (no fastify request) read too; a token is base64url, so it is never encoded.
 */
export function sessionToken(headers: IncomingHttpHeaders): string | undefined {
  const cookie = headers.cookie;
  if (cookie === undefined || !cookie.includes(SESSION_COOKIE)) return undefined;
  for (const pair of cookie.split(';')) {
    const eq = pair.indexOf('=');
    if (eq > 0 && pair.slice(0, eq).trim() === SESSION_COOKIE) return pair.slice(eq + 1).trim() || undefined;
  }
  return undefined;
}

/**
 * Whether a request comes from a page of another origin: its Origin is not this server's own (the
 * Host it was sent to), or the browser says it is cross-site or same-site but not same-origin
 * (Sec-Fetch-Site; SameSite=Strict still sends the cookie to another port of the same host). Such
 * a request may not act on a session cookie: the cookie is the browser's, not the page's.
 */
export function foreignOrigin(headers: IncomingHttpHeaders): boolean {
  const site = headers['sec-fetch-site'];
  if (site === 'cross-site' || site === 'same-site') return true;
  const origin = headers.origin;
  if (origin === undefined) return false;
  try {
    return new URL(origin).host !== (headers.host ?? '').toLowerCase();
  } catch {
    // `Origin: null` (a sandboxed frame, a file) names no origin at all.
    return true;
  }
}
