// The shape of one operation of the interface (an entry of OPERATIONS in operations.ts). Its own module so that
// the operation tables (operations.ts, standard-operations.ts) can share it without importing each other.
import type { z } from 'zod';
import type { ParamSpec } from './listing-query.ts';

export type Schema = z.ZodType | { readonly json: Record<string, unknown> };

export interface ResponseDoc {
  description: string;
  /** Content type → body schema (undefined: no body described). */
  content?: Record<string, Schema | undefined>;
  headers?: readonly string[];
}

export interface Operation<Id extends string = string> {
  readonly id: Id;
  readonly method: 'GET' | 'POST';
  /** The first path is canonical; the rest are aliases served by the same handler. */
  readonly paths: readonly string[];
  readonly summary: string;
  readonly description?: string | undefined;
  readonly tag: 'catalog' | 'discovery' | 'agents' | 'auth' | 'staff' | 'operations';
  /** route: a handler of the shim; static: a file of the build, served by the shim's static handler. */
  readonly servedBy: 'route' | 'static';
  readonly query?: readonly ParamSpec[] | undefined;
  readonly pathParams?: ReadonlyArray<{ readonly name: string; readonly description: string; readonly maxLength: number }> | undefined;
  readonly headers?: ReadonlyArray<{ readonly name: string; readonly description: string; readonly minLength?: number; readonly maxLength?: number }> | undefined;
  readonly body?: { readonly schema: Schema; readonly required: boolean; readonly contentType?: string } | undefined;
  /** Status → documentation (an entry may be undefined only as an artefact of typing the tables literally). */
  readonly responses: { readonly [status: number]: ResponseDoc | undefined };
  readonly security?: 'staffBearer' | undefined;
  /** closed: no CORS headers (staff routes, auth probes, OAuth endpoints, metrics); everything else is open to every origin. */
  readonly cors?: 'closed' | undefined;
}

/** An operation answered by a handler of the shim. */
export type RouteOperationOf<Id extends string> = Operation<Id> & { readonly servedBy: 'route' };

/**
 * Keeps each operation's id as its literal type, so the ids of a table are a union the shim's handler table is
 * checked against (a missing or an extra handler is a type error).
 */
export function defineOperations<const T extends readonly Operation[]>(operations: T): T {
  return operations;
}
