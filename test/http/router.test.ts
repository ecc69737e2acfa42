// The route table is made from OPERATIONS: every route operation is registered at each of its paths and
// aliases with its own handler, a fixed POST path shadowed by a GET parameter route refuses GET with 405, and
// the handler table is checked by the compiler (the @ts-expect-error lines below fail `npm run typecheck` the
// day a missing or extra handler stops being a type error).
import { describe, expect, it } from 'vitest';
import { OPERATIONS, routePath, type RouteOperationId } from '../../src/domain/contract/operations.ts';
import { json, type Handler, type HandlersFor, type HandlerTable, type RequestContext } from '../../server/http/handler.ts';
import { ROUTE_OPERATIONS, Router } from '../../server/http/router.ts';

/** A table whose every handler answers with its own operation id. */
function echoTable(): HandlerTable {
  const table: Partial<Record<RouteOperationId, Handler>> = {};
  for (const op of ROUTE_OPERATIONS) table[op.id as RouteOperationId] = () => json(200, { operation: op.id });
  return table as HandlerTable;
}

const ctx = (method: string, path: string): RequestContext => ({
  method,
  path,
  target: path,
  query: new URLSearchParams(),
  params: {},
  headers: {},
  clientIp: '127.0.0.1',
  signal: new AbortController().signal,
  body: async () => Buffer.alloc(0),
});

describe('the route table', () => {
  const router = new Router(echoTable());

  it('registers every path and alias of every route operation, and nothing else', () => {
    const expected = OPERATIONS.filter((op) => op.servedBy === 'route').flatMap((op) => op.paths.map((path) => `${op.method} ${routePath(path)} ${op.id}`));
    expect(
      router
        .list()
        .map((route) => `${route.method} ${route.path} ${route.operation}`)
        .sort(),
    ).toEqual(expected.sort());
  });

  it('sends each path and alias to its own operation, with the path parameters', async () => {
    for (const op of ROUTE_OPERATIONS) {
      for (const pattern of op.paths.map(routePath)) {
        const path = pattern.replace(/:([A-Za-z]+)/g, 'x-$1');
        const match = router.find(op.method, path);
        expect(match?.operation?.id, `${op.method} ${path}`).toBe(op.id);
        const reply = await match!.handler(ctx(op.method, path));
        expect(JSON.parse(String(reply.body))).toEqual({ operation: op.id });
        for (const name of pattern.match(/:([A-Za-z]+)/g) ?? []) expect(match!.params[name.slice(1)]).toBe(`x-${name.slice(1)}`);
      }
    }
  });

  it('answers HEAD with the GET route, and knows the methods of a path', () => {
    expect(router.find('HEAD', '/api/v1/meta')?.operation?.id).toBe('getMeta');
    expect(router.allowed('/ask')).toEqual(['GET', 'HEAD', 'POST']);
    expect(router.allowed('/a2a/v1')).toEqual(['POST']);
    expect(router.find('PUT', '/api/v1/meta')).toBeUndefined();
  });

  it('refuses GET on a POST path that a GET parameter route would read as a parameter', async () => {
    for (const path of ['/api/v1/listings/batch', '/v1/listings/batch', '/api/upstream/listings/batch']) {
      const match = router.find('GET', path)!;
      expect(match.operation).toBeUndefined();
      await expect(Promise.resolve().then(() => match.handler(ctx('GET', path)))).rejects.toMatchObject({
        code: 'method_not_allowed',
        headers: { Allow: 'POST' },
      });
      expect(router.allowed(path)).toEqual(['POST']);
    }
    expect(router.list().some((route) => route.method === 'GET' && route.path.endsWith('/listings/batch'))).toBe(false);
  });

  it('will not start with a handler missing', () => {
    const table = echoTable() as Partial<HandlerTable>;
    delete (table as Record<string, unknown>).getMeta;
    expect(() => new Router(table as HandlerTable)).toThrow(/getMeta/);
  });
});

describe('the handler table type', () => {
  it('takes route operation ids only, and every one of them', () => {
    const handler: Handler = () => json(200, {});
    const some: HandlersFor<'getMeta'> = { getMeta: handler };
    // @ts-expect-error getLlmsTxt is a file of the build, not a route operation: no handler may claim it.
    const fileOperation: HandlersFor<'getLlmsTxt'> = { getLlmsTxt: handler };
    // @ts-expect-error an id that is no operation at all
    const unknown: HandlersFor<'getWeather'> = { getWeather: handler };
    // @ts-expect-error a table without getStages is not a HandlerTable
    const missing: HandlerTable = { ...echoTable(), getStages: undefined };
    expect([some, fileOperation, unknown, missing]).toHaveLength(4);
  });
});
