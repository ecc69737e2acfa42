// The one page-token codec: a token holds the next page's offset and its query's fingerprint, opaque to clients,
// and the tokens of the earlier JSON form still decode, so a client holding one reaches its next page.
import { describe, expect, it } from 'vitest';
import { decodePageToken, encodePageToken } from '../../src/domain/contract/page-token.ts';

const legacy = (value: unknown) => Buffer.from(JSON.stringify(value), 'utf8').toString('base64url');

describe('page tokens', () => {
  it.each([
    [0, ''],
    [20, 'abc123xyz'],
    [9_007_199_254_740_991, 'k9.x'],
    [40, 'a query with spaces, dots. and "quotes"\n'],
  ])('decode what they encode: offset %i, fingerprint %j', (offset, fingerprint) => {
    expect(decodePageToken(encodePageToken(offset, fingerprint))).toEqual({ offset, fingerprint });
  });

  it('keep the listing cursor clients already hold: o<offset>.<fingerprint> in base64url', () => {
    expect(encodePageToken(20, 'abc')).toBe(Buffer.from('o20.abc').toString('base64url'));
  });

  it('decode the JSON form the registry, ARD and skills pages issued', () => {
    expect(decodePageToken(legacy([40, 'fp']))).toEqual({ offset: 40, fingerprint: 'fp' });
  });

  it.each([
    ['not base64 of a token', 'zzzz'],
    ['empty', ''],
    ['a JSON object', legacy({ offset: 1 })],
    ['a negative offset', legacy([-1, 'fp'])],
    ['a fractional offset', legacy([1.5, 'fp'])],
    ['a fingerprint that is not a string', legacy([1, 2])],
    ['broken JSON', Buffer.from('[1, "fp"').toString('base64url')],
  ])('refuse %s', (_name, raw) => {
    expect(decodePageToken(raw)).toBeUndefined();
  });
});
