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

export interface Operation {
  id: string;
  method: 'GET' | 'POST';
  /** The first path is canonical; the rest are aliases served by the same handler. */
  paths: readonly string[];
  summary: string;
  description?: string;
  tag: 'catalog' | 'discovery' | 'agents' | 'auth' | 'staff' | 'operations';
  /** route: a handler of the shim; static: a file of the build, served by the shim's static handler. */
  servedBy: 'route' | 'static';
  query?: readonly ParamSpec[];
  pathParams?: ReadonlyArray<{ name: string; description: string; maxLength: number }>;
  headers?: ReadonlyArray<{ name: string; description: string; minLength?: number; maxLength?: number }>;
  body?: { schema: Schema; required: boolean; contentType?: string };
  responses: Record<number, ResponseDoc>;
  security?: 'staffBearer';
  /** closed: no CORS headers (staff routes, auth probes, OAuth endpoints, metrics); everything else is open to every origin. */
  cors?: 'closed';
}
