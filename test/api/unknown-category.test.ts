// Guarantees an unknown `category` is refused like an unknown `type`: a 400 in the documented error shape that
// names the closest real category and where the list is, never an empty 200; a real category still answers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closestCategory } from '../../src/domain/listing/categories.ts';
import { json, startInProcess, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

describe('GET /api/v1/listings?category=', () => {
  it.each([
    ['database', "(did you mean 'databases'?)"],
    ['databses', "(did you mean 'databases'?)"],
    ['browser-automaton', "(did you mean 'browser-automation'?)"],
    ['zzzz-nothing-like-it', 'lists every category'],
  ])('%s: 400 invalid_parameter naming the closest category', async (category, says) => {
    for (const path of ['/api/v1/listings', '/api/upstream/listings']) {
      const res = await server.fetch(`${path}?category=${encodeURIComponent(category)}&type=mcp`);
      expect(res.status).toBe(400);
      const body = await json<{ code: string; message: string; resolution: string }>(res);
      expect(body.code).toBe('invalid_parameter');
      expect(body.message).toContain(`is not a category of the catalog: '${category}'`);
      expect(body.message).toContain(says);
      expect(body.resolution).toBeTruthy();
    }
  });

  it('a real category answers its listings', async () => {
    const res = await server.fetch('/api/v1/listings?category=databases&type=mcp&limit=3');
    expect(res.status).toBe(200);
    expect((await json<{ items: unknown[] }>(res)).items).toHaveLength(3);
  });
});

describe('closestCategory', () => {
  it.each([
    ['database', ['databases', 'data-science'], 'databases'],
    ['devops ', ['devops', 'dev-tools'], 'devops'],
    ['qwerty', ['databases', 'devops'], undefined],
  ])('%j among %j → %j', (wanted, names, closest) => {
    expect(closestCategory(wanted, names)).toBe(closest);
  });
});
