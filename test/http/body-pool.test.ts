// The memory of the listing routes' bodies (server/http/body-pool.ts): reused once given back, never handed to two
// leases at once, and only for the bodies it leased.
import { describe, expect, it } from 'vitest';
import { giveBack, isLeased, leaseBody } from '../../server/http/body-pool.ts';

describe('the body pool', () => {
  it('gives a body of the size asked for, leased until it is given back', () => {
    const body = leaseBody(10_000);
    expect(body.length).toBe(10_000);
    expect(isLeased(body)).toBe(true);
    giveBack(body);
    expect(isLeased(body)).toBe(false);
  });

  it('writes the next body of the same size class into the memory given back', () => {
    const first = leaseBody(20_000);
    giveBack(first);
    const second = leaseBody(17_000);
    expect(second.buffer).toBe(first.buffer);
    giveBack(second);
  });

  it('never hands one block to two leases, even when a body is given back twice', () => {
    const body = leaseBody(9_000);
    giveBack(body);
    giveBack(body);
    const a = leaseBody(9_000);
    const b = leaseBody(9_000);
    expect(a.buffer).not.toBe(b.buffer);
    a.fill(1);
    b.fill(2);
    expect(a.every((byte) => byte === 1)).toBe(true);
    giveBack(a);
    giveBack(b);
  });

  it('keeps a body that is not given back out of every later lease', () => {
    const kept = leaseBody(12_000).fill(7);
    for (let i = 0; i < 20; i++) giveBack(leaseBody(12_000).fill(9));
    expect(kept.every((byte) => byte === 7)).toBe(true);
  });

  it('leaves small, large and foreign buffers alone', () => {
    const small = leaseBody(100);
    const large = leaseBody(1 << 20);
    expect(isLeased(small)).toBe(false);
    expect(isLeased(large)).toBe(false);
    const foreign = Buffer.allocUnsafe(10_000);
    giveBack(foreign);
    const next = leaseBody(10_000);
    expect(next.buffer).not.toBe(foreign.buffer);
    giveBack(next);
  });
});
