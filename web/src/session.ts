/**
 * The page's session (docs/spec-gaps.md, Web sessions): the page never holds an API key. It asks
 * the server for its session cookie's state, takes the demo session a loopback-only server offers,
 * or exchanges a key typed once for a session cookie.
 */

export interface SessionInfo {
  tier: string;
  expires_at: string;
  demo?: boolean;
}

async function sessionCall(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<Response> {
  return fetch(path, {
    method,
    credentials: 'same-origin',
    headers:
      body === undefined
        ? { accept: 'application/json' }
        : { accept: 'application/json', 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
}

/** The session the cookie names, or undefined when there is none (401). */
export async function currentSession(): Promise<SessionInfo | undefined> {
  const res = await sessionCall('GET', '/session');
  if (res.status === 401) return undefined;
  if (!res.ok) throw new Error(`the session could not be read (${res.status})`);
  return (await res.json()) as SessionInfo;
}

/** The demo session, or undefined where the server offers none (it listens beyond loopback: 403). */
export async function demoSession(): Promise<SessionInfo | undefined> {
  const res = await sessionCall('POST', '/session/demo');
  if (res.status === 403 || res.status === 404) return undefined;
  if (!res.ok) throw new Error(`the demo session could not be started (${res.status})`);
  return (await res.json()) as SessionInfo;
}

/** Exchanges a key for a session cookie; a refused key is an Error saying so. */
export async function signIn(key: string): Promise<SessionInfo> {
  const res = await sessionCall('POST', '/session', { key });
  if (res.status === 401) throw new Error('That key was not accepted.');
  if (!res.ok) throw new Error(`Signing in failed (${res.status}).`);
  return (await res.json()) as SessionInfo;
}

export async function signOut(): Promise<void> {
  await sessionCall('DELETE', '/session');
}
