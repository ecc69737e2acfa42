// The route table: method + path → handler, matched by find-my-way. Route modules export arrays of Route;
// the composition root registers them all here, and this is the only place that knows how paths match.
import type { IncomingMessage, ServerResponse } from 'node:http';
import FindMyWay from 'find-my-way';

export const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof METHODS)[number];

export interface RequestContext {
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly method: string;
  readonly path: string;
  readonly query: URLSearchParams;
  readonly params: Readonly<Record<string, string | undefined>>;
  readonly clientIp: string;
  /** Aborted when the client goes away, so long work (streams, searches) can stop. */
  readonly signal: AbortSignal;
}

export type Handler = (ctx: RequestContext) => void | Promise<void>;

export interface Route {
  method: HttpMethod;
  /** One path or several aliases served by the same handler. */
  path: string | readonly string[];
  handler: Handler;
  /**
   * Registered only to answer 405 where a fixed path shadows a parameter (GET /listings/batch would otherwise
   * be read as the listing 'batch'): left out of Allow headers and of the route list.
   */
  refused?: boolean;
}

export interface Match {
  handler: Handler;
  params: Record<string, string | undefined>;
  /** The registered pattern (/api/v1/listings/:id), the route label of metrics and logs. */
  route: string;
}

export class Router {
  private readonly fmw = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true, maxParamLength: 2048 });
  private readonly registered: Array<{ method: HttpMethod; path: string }> = [];

  add(routes: readonly Route[]): void {
    for (const route of routes) {
      for (const path of typeof route.path === 'string' ? [route.path] : route.path) {
        this.fmw.on(route.method, path, () => undefined, { handler: route.handler, route: path, refused: route.refused === true });
        if (!route.refused) this.registered.push({ method: route.method, path });
      }
    }
  }

  /** Every (method, path) registered, for the contract tests against the operations table. */
  list(): ReadonlyArray<{ method: HttpMethod; path: string }> {
    return this.registered;
  }

  find(method: string, path: string): Match | undefined {
    const lookup = method === 'HEAD' ? 'GET' : method;
    if (!(METHODS as readonly string[]).includes(lookup)) return undefined;
    const found = this.fmw.find(lookup as HttpMethod, path);
    if (!found) return undefined;
    const store = found.store as { handler: Handler; route: string };
    return { handler: store.handler, params: found.params, route: store.route };
  }

  /** Methods that do have a route at this path: the Allow header of a 405. */
  allowed(path: string): string[] {
    const methods = METHODS.filter((method) => {
      const found = this.fmw.find(method, path);
      return found !== null && !(found.store as { refused: boolean }).refused;
    });
    if (methods.includes('GET')) methods.splice(1, 0, 'HEAD' as never);
    return methods;
  }
}
