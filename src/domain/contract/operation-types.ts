// The shape of one operation of the interface (an entry of OPERATIONS in operations.ts). Its own module so that
// the operation tables (operations.ts, standard-operations.ts) can share it without importing each other.
import { z } from 'zod';
import { LIMITS } from './limits.ts';
import type { ParamSpec } from './listing-query.ts';

export type Schema = z.ZodType | { readonly json: Record<string, unknown> };

export interface ResponseDoc {
  description: string;
  /** Content type → body schema (undefined: no body described). */
  content?: Record<string, Schema | undefined>;
  headers?: readonly string[];
}

/** A path parameter: its rules as zod, and their length limit read once (the pipeline checks it per request). */
export interface PathParamSpec {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodString;
  readonly maxLength: number;
}

/** A request header an operation reads, with its rules as zod. */
export interface HeaderSpec {
  readonly name: string;
  readonly description: string;
  readonly schema: z.ZodString;
}

/** A path parameter of at least LIMITS.id.min and at most `maxLength` characters. */
export function pathParam(name: string, description: string, maxLength: number): PathParamSpec {
  return { name, description, schema: z.string().min(LIMITS.id.min).max(maxLength), maxLength };
}

export function headerParam(name: string, description: string, length: { min: number; max: number }): HeaderSpec {
  return { name, description, schema: z.string().min(length.min).max(length.max) };
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
  readonly pathParams?: readonly PathParamSpec[] | undefined;
  readonly headers?: readonly HeaderSpec[] | undefined;
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
