import type { IncomingMessage, Server } from 'node:http';
import { BlockList, isIP } from 'node:net';

/** An IPv4 address written as IPv6 (`::ffff:10.0.0.1`, as a dual-stack socket reports it), as IPv4. */
function plain(address: string): string {
  return address.startsWith('::ffff:') && isIP(address.slice(7)) === 4 ? address.slice(7) : address;
}

function parse(entry: string): { address: string; prefix: number | undefined; family: 'ipv4' | 'ipv6' } | undefined {
  const [address, bits, ...rest] = entry.split('/');
  if (address === undefined || rest.length > 0) return undefined;
  const version = isIP(address);
  if (version === 0) return undefined;
  const max = version === 4 ? 32 : 128;
  if (bits !== undefined && !/^\d{1,3}$/.test(bits)) return undefined;
  const prefix = bits === undefined ? undefined : Number(bits);
  if (prefix !== undefined && prefix > max) return undefined;
  return { address, prefix, family: version === 4 ? 'ipv4' : 'ipv6' };
}

/** Whether `entry` is an IP address or a CIDR range (`10.0.0.0/8`, `fd00::/8`). */
export function isAddressOrCidr(entry: string): boolean {
  return parse(entry) !== undefined;
}

/**
 * The reverse proxies whose X-Forwarded-For is believed. A client can write any X-Forwarded-For it
 * likes, so the chain is read from the right (the hop nearest this server) and the first address
 * that is not a trusted proxy is the client: what a client wrote to the left of it counts for nothing.
 */
export class TrustedProxies {
  private readonly list = new BlockList();
  readonly empty: boolean;

  /** `entries`: addresses and CIDR ranges, checked by the configuration (`isAddressOrCidr`). */
  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const p = parse(entry);
      if (!p) throw new Error(`not an address or CIDR range: ${entry}`);
      if (p.prefix === undefined) this.list.addAddress(p.address, p.family);
      else this.list.addSubnet(p.address, p.prefix, p.family);
    }
    this.empty = entries.length === 0;
  }

  /** Whether a hop at `address` is a trusted proxy. */
  readonly trusts = (address: string): boolean => {
    if (this.empty) return false;
    const a = plain(address);
    const version = isIP(a);
    return version !== 0 && this.list.check(a, version === 4 ? 'ipv4' : 'ipv6');
  };

  /**
   * The client address of a request that came from `remote` carrying `forwarded` (X-Forwarded-For):
   * `remote` itself unless it is a trusted proxy, else the right-most hop that is not one (the
   * left-most hop when every one is trusted).
   */
  clientOf(remote: string, forwarded: string | string[] | undefined): string {
    if (!this.trusts(remote) || forwarded === undefined) return remote;
    const hops = (Array.isArray(forwarded) ? forwarded.join(',') : forwarded)
      .split(',')
      .map((h) => h.trim())
      .filter((h) => h !== '');
    let client = remote;
    for (let i = hops.length - 1; i >= 0; i--) {
      client = hops[i]!;
      if (!this.trusts(client)) break;
    }
    return client;
  }
}

/** Client addresses of WebSocket upgrade requests, noted before the streams' own listener runs. */
const upgradeClients = new WeakMap<IncomingMessage, string>();

/**
 * Notes the client address of every upgrade request `server` receives, for `clientAddress`.
 * Called before the streams attach: 'upgrade' listeners run in the order they were added.
 */
export function noteUpgradeClients(server: Server, proxies: TrustedProxies): void {
  server.on('upgrade', (req: IncomingMessage) => {
    upgradeClients.set(req, proxies.clientOf(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for']));
  });
}

/** The client address of an upgrade request: through trusted proxies if any, else the socket's. */
export function clientAddress(req: IncomingMessage): string {
  return upgradeClients.get(req) ?? req.socket.remoteAddress ?? '';
}
