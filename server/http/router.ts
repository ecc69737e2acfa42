// The route table, made from OPERATIONS: every operation served by a route gets its handler (by operation id, so
// a missing or extra one is a type error) at each of its paths and aliases, matched by find-my-way. This is the
// only place that knows how paths match.
import FindMyWay from 'find-my-way';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { OPERATIONS, routePath, type RouteOperation, type RouteOperationId } from '../../src/domain/contract/operations.ts';
import type { Handler, HandlerTable } from './handler.ts';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof METHODS)[number];

export interface Match {
  handler: Handler;
  params: Record<string, string | undefined>;
  /** The registered pattern (/api/v1/listings/:id), the route label of metrics and logs. */
  route: string;
  /** Undefined for a refusal (see below). */
  operation: RouteOperation | undefined;
}

interface Stored {
  handler: Handler;
  route: string;
  operation: RouteOperation | undefined;
  refused: boolean;
}

/** The operations a handler answers, in table order. */
export const ROUTE_OPERATIONS: readonly RouteOperation[] = OPERATIONS.filter((op): op is RouteOperation => op.servedBy === 'route');

/**
 * A fixed POST path that a GET parameter route would otherwise read as a parameter (GET /api/v1/listings/batch
 * as the listing 'batch'): GET on it is a 405 naming POST, not a lookup. Registered, but left out of Allow
 * headers and of the route list.
 */
const refusal: Handler = (ctx) => {
  throw new CatalogError('method_not_allowed', `${ctx.method} is not allowed on ${ctx.path}; POST a JSON body to it.`, { headers: { Allow: 'POST' } });
};

export class Router {
  private readonly fmw = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 2048 });
  private readonly registered: Array<{ method: HttpMethod; path: string; operation: RouteOperationId }> = [];

  constructor(handlers: HandlerTable) {
    for (const operation of ROUTE_OPERATIONS) {
      const handler = handlers[operation.id as RouteOperationId];
      if (typeof handler !== 'function') throw new Error(`no handler for the operation ${operation.id}`);
      for (const path of operation.paths.map(routePath)) {
        this.fmw.on(operation.method, path, () => undefined, { handler, route: path, operation, refused: false } satisfies Stored);
        this.registered.push({ method: operation.method, path, operation: operation.id as RouteOperationId });
      }
    }
    for (const { method, path } of [...this.registered]) {
      if (method !== 'POST' || path.includes(':')) continue;
      const shadow = this.fmw.find('GET', path);
      if (shadow && (shadow.store as Stored).route !== path) {
        this.fmw.on('GET', path, () => undefined, { handler: refusal, route: path, operation: undefined, refused: true } satisfies Stored);
      }
    }
  }

  /** Every (method, path) registered, for the contract tests against the operations table. */
  list(): ReadonlyArray<{ method: HttpMethod; path: string; operation: RouteOperationId }> {
    return this.registered;
  }

  find(method: string, path: string): Match | undefined {
    const lookup = method === 'HEAD' ? 'GET' : method;
    if (!(METHODS as readonly string[]).includes(lookup)) return undefined;
    const found = this.fmw.find(lookup as HttpMethod, path);
    if (!found) return undefined;
    const store = found.store as Stored;
    return { handler: store.handler, params: found.params, route: store.route, operation: store.operation };
  }

  /** Methods that do have a route at this path: the Allow header of a 405. */
  allowed(path: string): string[] {
    const methods = METHODS.filter((method) => {
      const found = this.fmw.find(method, path);
      return found !== null && !(found.store as Stored).refused;
    });
    if (methods.includes('GET')) methods.splice(1, 0, 'HEAD' as never);
    return methods;
  }
}
