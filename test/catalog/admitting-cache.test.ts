// The answer caches keep an answer from its second request on (server/catalog/admitting-cache.ts): a request asked
// once is never kept, one asked again is, the bound still holds, and the doorkeeper forgets as its slots are reused.
// Once full, an answer replaces the least recently used only when asked more often (hits count), so a tail asked
// twice in a cycle leaves the cache as it was.
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

  it('still bounds what it keeps, and once full replaces an answer only with one asked more often', () => {
    const cache = new AdmittingCache<number>({ max: 3 });
    for (const key of ['a', 'b', 'c', 'd']) {
      cache.offer(key, 0);
      cache.offer(key, 1);
    }
    expect(cache.size).toBe(3);
    // 'd' was asked as often as 'a', the least recently used: no reason to swap them.
    expect(cache.get('d')).toBeUndefined();
    expect(cache.offer('d', 2)).toBe(true);
    expect(cache.size).toBe(3);
    expect(cache.get('d')).toBe(2);
    expect(cache.get('a')).toBeUndefined();
  });

  it('leaves the cache as it was under a tail of requests each asked twice', () => {
    const cache = new AdmittingCache<number>({ maxSize: 300, sizeCalculation: () => 100 });
    for (const key of ['x', 'y', 'z']) for (let i = 0; i < 4; i++) cache.offer(key, i);
    let kept = 0;
    for (let i = 0; i < 5_000; i++) {
      if (cache.offer(`tail ${i}`, i)) kept++;
      if (cache.offer(`tail ${i}`, i)) kept++;
    }
    expect(kept).toBe(0);
    expect([cache.get('x'), cache.get('y'), cache.get('z')]).toEqual([3, 3, 3]);
  });

  it('counts hits: an answer asked often stays when it is the least recently used', () => {
    const cache = new AdmittingCache<number>({ max: 3 });
    for (const key of ['a', 'b', 'c']) for (let i = 0; i < 2; i++) cache.offer(key, i);
    for (let i = 0; i < 5; i++) cache.get('a');
    cache.get('b');
    cache.get('c');
    // 'a' is now the least recently used, asked 7 times; 'd' three times.
    for (let i = 0; i < 3; i++) expect(cache.offer('d', i)).toBe(false);
    expect(cache.get('a')).toBe(1);
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
