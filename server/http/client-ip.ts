// Which client a request counts against. X-Forwarded-For is believed only as far as TRUST_PROXY says, and
// IPv6 clients are keyed by their /56 prefix, since one subscriber commonly holds a whole /56 or /64.
import type { IncomingHttpHeaders } from 'node:http';
import { isIPv6 } from 'node:net';

export function clientAddress(socketAddress: string, headers: IncomingHttpHeaders, trustProxy: false | true | number): string {
  if (trustProxy === false || trustProxy === 0) return socketAddress;
  const header = headers['x-forwarded-for'];
  const raw = Array.isArray(header) ? header.join(',') : header;
  if (!raw) return socketAddress;
  const chain = raw
    .split(',')
    .map((part) => part.trim())
    .filter(Boolean);
  if (chain.length === 0) return socketAddress;
  if (trustProxy === true) return chain[0]!;
  // With N trusted hops, the client is the address the outermost trusted proxy saw: N from the right.
  return chain[Math.max(0, chain.length - trustProxy)]!;
}

export function rateLimitKey(address: string): string {
  const plain = address.startsWith('::ffff:') ? address.slice(7) : address;
  // An IPv4 address has no colon: no need to run isIPv6's pattern on every request from one.
  if (!plain.includes(':') || !isIPv6(plain)) return plain;
  const groups = expandIPv6(plain);
  return `${groups.slice(0, 3).join(':')}:${groups[3]!.slice(0, 2)}00::/56`;
}

function expandIPv6(address: string): string[] {
  const [head = '', tail = ''] = address.split('::');
  const left = head ? head.split(':') : [];
  const right = tail ? tail.split(':') : [];
  const missing = address.includes('::') ? 8 - left.length - right.length : 0;
  return [...left, ...Array(missing).fill('0'), ...right].map((g) => g.padStart(4, '0').toLowerCase());
}
