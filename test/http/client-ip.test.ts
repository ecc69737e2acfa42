// Which client a request counts against (server/http/client-ip.ts): X-Forwarded-For believed only as far as
// TRUST_PROXY says, IPv4 addresses as they are, and IPv6 clients by their /56 prefix, whatever notation they arrive in.
import { describe, expect, it } from 'vitest';
import { clientAddress, rateLimitKey } from '../../server/http/client-ip.ts';

describe('the rate-limit key of an address', () => {
  it('is an IPv4 address itself, also when it arrives IPv4-mapped', () => {
    expect(rateLimitKey('127.0.0.1')).toBe('127.0.0.1');
    expect(rateLimitKey('203.0.113.9')).toBe('203.0.113.9');
    expect(rateLimitKey('::ffff:203.0.113.9')).toBe('203.0.113.9');
  });

  it('is the /56 of an IPv6 address, the same for every notation and every host in it', () => {
    const key = rateLimitKey('2001:db8:aa:bb00::1');
    expect(key).toBe('2001:0db8:00aa:bb00::/56');
    expect(rateLimitKey('2001:0DB8:00AA:BB12:0:0:0:ffff')).toBe(key);
    expect(rateLimitKey('2001:db8:aa:bbff:1:2:3:4')).toBe(key);
    expect(rateLimitKey('2001:db8:aa:bc00::1')).not.toBe(key);
    expect(rateLimitKey('::1')).toBe('0000:0000:0000:0000::/56');
  });

  it('leaves what is not an address as it is (a proxy may send a name)', () => {
    expect(rateLimitKey('unknown')).toBe('unknown');
    expect(rateLimitKey('not:an:address')).toBe('not:an:address');
  });
});

describe('the client address', () => {
  const headers = { 'x-forwarded-for': '198.51.100.7, 10.0.0.2, 10.0.0.3' };

  it('is the peer when no proxy is trusted, whatever X-Forwarded-For says', () => {
    expect(clientAddress('10.0.0.9', headers, false)).toBe('10.0.0.9');
    expect(clientAddress('10.0.0.9', headers, 0)).toBe('10.0.0.9');
  });

  it('is the address N hops from the right with N trusted proxies, the first with all trusted', () => {
    expect(clientAddress('10.0.0.9', headers, 1)).toBe('10.0.0.3');
    expect(clientAddress('10.0.0.9', headers, 2)).toBe('10.0.0.2');
    expect(clientAddress('10.0.0.9', headers, 5)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.9', headers, true)).toBe('198.51.100.7');
    expect(clientAddress('10.0.0.9', {}, true)).toBe('10.0.0.9');
    expect(clientAddress('10.0.0.9', { 'x-forwarded-for': ' , ' }, 1)).toBe('10.0.0.9');
  });
});
