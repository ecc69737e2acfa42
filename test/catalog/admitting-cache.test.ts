// The answer caches keep an answer from its second request on (server/catalog/admitting-cache.ts): a request asked
// once is never kept, one asked again is, the bound still holds, and the doorkeeper forgets as its slots are reused.
import { describe, expect, it } from 'vitest';
import { AdmittingCache } from '../../server/catalog/admitting-cache.ts';

describe('AdmittingCache', () => {
  it('keeps nothing offered once and keeps what is offered a second time', () => {
    const cache = new AdmittingCache<string>({ max: 10 });
    expect(cache.offer('a', 'first')).toBe(false);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.offer('a', 'second')).toBe(true);
    expect(cache.get('a')).toBe('second');
    expect(cache.size).toBe(1);
  });

  it('does not let a long tail of single requests push out kept answers', () => {
    const cache = new AdmittingCache<number>({ max: 3 });
    cache.offer('popular', 1);
    cache.offer('popular', 1);
    for (let i = 0; i < 10_000; i++) cache.offer(`distinct ${i}`, i);
    expect(cache.get('popular')).toBe(1);
    expect(cache.size).toBe(1);
  });

  it('still bounds what it keeps', () => {
    const cache = new AdmittingCache<number>({ max: 3 });
    for (const key of ['a', 'b', 'c', 'd']) {
      cache.offer(key, 0);
      cache.offer(key, 1);
    }
    expect(cache.size).toBe(3);
    expect(cache.get('a')).toBeUndefined();
    expect(cache.get('d')).toBe(1);
  });

  it('forgets a single request once its slot is taken by another', () => {
    // One slot: every key shares it, so only the request just before counts as asked.
    const cache = new AdmittingCache<number>({ max: 10 }, 1);
    cache.offer('a', 1);
    cache.offer('b', 1);
    expect(cache.offer('a', 2)).toBe(false);
    expect(cache.offer('a', 3)).toBe(true);
    expect(cache.get('a')).toBe(3);
  });
});
