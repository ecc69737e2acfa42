// The OpenAPI 3.1 document, generated from the operations table and the zod resource schemas, as JSON
// and as YAML (same document).
import { z } from 'zod';
import { stringify as toYaml } from 'yaml';
import { OPERATIONS, type Operation, type ResponseDoc, type Schema } from '../../../src/domain/contract/operations.ts';
import { paramRules, type ParamSpec } from '../../../src/domain/contract/listing-query.ts';
import { ERROR_CODES } from '../../../src/domain/contract/errors.ts';
import { BRAND, DISCLAIMER, TAGLINE } from '../../../src/domain/brand.ts';
import { LIMITS } from '../../../src/domain/contract/limits.ts';
import '../../../src/domain/schemas.ts';
import type { GeneratedFile } from '../../site-writer.ts';

type Json = Record<string, unknown>;

function schemaJson(schema: Schema): Json {
  if ('json' in schema && !(schema instanceof z.ZodType)) return schema.json as Json;
  const id = z.globalRegistry.get(schema as z.ZodType)?.id;
  if (id) return { $ref: `#/components/schemas/${id}` };
  const generated = z.toJSONSchema(schema as z.ZodType, { target: 'draft-2020-12', io: 'output', unrepresentable: 'any' }) as Json;
  return strip(generated);
}

/** OpenAPI components carry plain schemas: no $schema/$id/$defs; registered schemas are components already. */
function strip(schema: Json): Json {
  const { $schema: _s, $id: _i, $defs: _d, ...rest } = schema;
  return JSON.parse(JSON.stringify(rest).replaceAll('"#/$defs/', '"#/components/schemas/'));
}

function componentSchemas(): Record<string, Json> {
  const { schemas } = z.toJSONSchema(z.globalRegistry, {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
    uri: (id) => `#/components/schemas/${id}`,
  }) as { schemas: Record<string, Json> };
  const out: Record<string, Json> = {};
  for (const [id, schema] of Object.entries(schemas)) {
    if (id === 'ListingRecord') continue;
    out[id] = strip(schema);
  }
  out.ErrorCode = { type: 'string', enum: Object.keys(ERROR_CODES), description: 'Stable snake_case error codes of the Error body.' };
  out.Error = { ...out.Error, properties: { ...(out.Error?.properties as Json), code: { $ref: '#/components/schemas/ErrorCode' } } };
  return out;
}

/** A query parameter's schema, from its zod rules (an integer without a maximum states none). */
function paramSchema(spec: ParamSpec): Json {
  const rules = paramRules(spec);
  const schema: Json = { type: rules.kind };
  if (rules.maxLength !== undefined) schema.maxLength = rules.maxLength;
  if (rules.min !== undefined) schema.minimum = rules.min;
  if (rules.max !== undefined) schema.maximum = rules.max;
  if (rules.enum) schema.enum = [...rules.enum];
  if (rules.default !== undefined) schema.default = rules.default;
  return schema;
}

/** A path parameter's or header's schema, from its zod length rules. */
function stringSchema(schema: z.ZodString): Json {
  return { type: 'string', minLength: schema.minLength ?? undefined, maxLength: schema.maxLength ?? undefined };
}

const RATE_HEADERS = ['RateLimit', 'RateLimit-Policy', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset'];

function responses(op: Operation): Json {
  const out: Json = {};
  const common = ['API-Version', 'X-Request-Id', 'Catalog-Build', ...RATE_HEADERS];
  for (const [status, doc] of Object.entries(op.responses) as Array<[string, ResponseDoc | undefined]>) {
    if (doc === undefined) continue;
    const headers: Json = {};
    for (const name of [...common, ...(doc.headers ?? [])]) headers[name] = { $ref: `#/components/headers/${name}` };
    if (status === '401') headers['WWW-Authenticate'] = { $ref: '#/components/headers/WWW-Authenticate' };
    const entry: Json = { description: doc.description, headers };
    if (doc.content) {
      entry.content = Object.fromEntries(Object.entries(doc.content).map(([type, schema]) => [type, schema ? { schema: schemaJson(schema) } : {}]));
    }
    out[status] = entry;
  }
  if (op.servedBy === 'route' && !out['400']) out['400'] = { $ref: '#/components/responses/BadRequest' };
  if (op.security && !out['401']) out['401'] = { $ref: '#/components/responses/Unauthorized' };
  if (op.pathParams && !out['404']) out['404'] = { $ref: '#/components/responses/NotFound' };
  out['405'] = { $ref: '#/components/responses/MethodNotAllowed' };
  out['429'] = { $ref: '#/components/responses/TooManyRequests' };
  out['500'] = { $ref: '#/components/responses/InternalError' };
  return out;
}

function operationObject(op: Operation, index: number): Json {
  const parameters: Json[] = [{ $ref: '#/components/parameters/ApiVersion' }];
  for (const p of op.pathParams ?? [])
    parameters.push({ name: p.name, in: 'path', required: true, description: p.description, schema: stringSchema(p.schema) });
  for (const spec of op.query ?? [])
    parameters.push({ name: spec.name, in: 'query', required: false, description: spec.description, schema: paramSchema(spec) });
  for (const h of op.headers ?? [])
    parameters.push({ name: h.name, in: 'header', required: false, description: h.description, schema: stringSchema(h.schema) });
  const out: Json = {
    operationId: index === 0 ? op.id : `${op.id}_alias${index}`,
    summary: op.summary,
    tags: [op.tag],
    parameters,
    responses: responses(op),
  };
  if (op.description) out.description = op.description;
  if (op.body) {
    out.requestBody = { required: op.body.required, content: { [op.body.contentType ?? 'application/json']: { schema: schemaJson(op.body.schema) } } };
  }
  out.security = op.security ? [{ staffBearer: [] }] : [];
  return out;
}

export function openApiDocument(baseUrl: string): Json {
  const paths: Record<string, Json> = {};
  for (const op of OPERATIONS) {
    op.paths.forEach((path, index) => {
      paths[path] ??= {};
      paths[path]![op.method.toLowerCase()] = operationObject(op, index);
    });
  }
  const errorBody = { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } };
  const errorHeaders = { 'API-Version': { $ref: '#/components/headers/API-Version' } };
  return {
    openapi: '3.1.0',
    info: {
      title: `${BRAND} API`,
      version: '1',
      summary: TAGLINE,
      description: `${TAGLINE}\n\nRead-only and free; callers send no credential. ${DISCLAIMER}`,
      license: { name: 'Data from public repositories; see /llms-full.txt for provenance', identifier: 'CC-BY-4.0' },
    },
    servers: [{ url: baseUrl }],
    tags: [
      { name: 'catalog', description: 'Catalog JSON (version 1; /api/upstream is the unversioned alias)' },
      { name: 'discovery', description: 'Machine-readable discovery files' },
      { name: 'agents', description: 'MCP, A2A and /ask' },
      { name: 'auth', description: 'Authentication probes and OAuth-style metadata (nothing is issued)' },
      { name: 'staff', description: 'Staff-only routes (Bearer JWT)' },
      { name: 'operations', description: 'Liveness, readiness and Prometheus metrics' },
    ],
    paths,
    components: {
      schemas: componentSchemas(),
      parameters: {
        ApiVersion: {
          name: 'API-Version',
          in: 'header',
          required: false,
          description: 'Only 1 is accepted; any other value is a 400.',
          schema: { type: 'string', enum: ['1'], default: '1' },
        },
      },
      headers: {
        'API-Version': { description: 'Version that answered (always 1)', schema: { type: 'string', enum: ['1'] } },
        RateLimit: { description: 'limit=N, remaining=N, reset=S (IETF RateLimit fields)', schema: { type: 'string' } },
        'RateLimit-Policy': { description: `${LIMITS.rateLimit.max};w=${LIMITS.rateLimit.windowSeconds}`, schema: { type: 'string' } },
        'RateLimit-Limit': { description: 'Requests allowed per window', schema: { type: 'integer' } },
        'RateLimit-Remaining': { description: 'Requests left in the window', schema: { type: 'integer' } },
        'RateLimit-Reset': { description: 'Seconds until the window resets', schema: { type: 'integer' } },
        'Retry-After': { description: 'Seconds to wait (429)', schema: { type: 'integer' } },
        Allow: { description: 'Methods allowed on the path (405)', schema: { type: 'string' } },
        'WWW-Authenticate': {
          description: 'Bearer realm="catalog", resource_metadata="{base_url}/.well-known/oauth-protected-resource"',
          schema: { type: 'string' },
        },
        'X-Request-Id': {
          description: 'The request id: the X-Request-Id sent (1 to 128 of A-Z a-z 0-9 . _ : -) or one the server made; also in its log line',
          schema: { type: 'string' },
        },
        'Catalog-Build': { description: 'Id of the build that answered (changes when a rebuild is switched to)', schema: { type: 'string' } },
        'Search-Mode': { description: 'How semantic was answered: semantic, hybrid or keyword-fallback', schema: { type: 'string' } },
        'Search-Match': {
          description:
            'partial: fewer than 10 listings contain every word of q, so the listings containing them all come first, then the best partial matches (listings with the most words). Absent when every result contains every word.',
          schema: { type: 'string', enum: ['partial'] },
        },
        'Search-Corrected': {
          description:
            'The query searched instead of q, percent-encoded: q had no exact hits (no listing contains every word) and some of its words are in no listing, so each of those was replaced by the closest word of the catalog (one edit away, two from 8 characters; same first letter). Absent when q was searched as sent.',
          schema: { type: 'string' },
        },
      },
      responses: {
        BadRequest: { description: 'Invalid query, header or body; the message names the parameter', headers: errorHeaders, content: errorBody },
        Unauthorized: {
          description: 'Staff Bearer JWT required',
          headers: { ...errorHeaders, 'WWW-Authenticate': { $ref: '#/components/headers/WWW-Authenticate' } },
          content: errorBody,
        },
        NotFound: { description: 'No listing or route matches', headers: errorHeaders, content: errorBody },
        MethodNotAllowed: {
          description: 'Method not allowed',
          headers: { ...errorHeaders, Allow: { $ref: '#/components/headers/Allow' } },
          content: errorBody,
        },
        TooManyRequests: {
          description: 'Rate limited',
          headers: {
            ...errorHeaders,
            'Retry-After': { $ref: '#/components/headers/Retry-After' },
            ...Object.fromEntries(RATE_HEADERS.map((h) => [h, { $ref: `#/components/headers/${h}` }])),
          },
          content: errorBody,
        },
        InternalError: { description: 'Server error', headers: errorHeaders, content: errorBody },
      },
      securitySchemes: { staffBearer: { type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Staff-only routes; see /auth.md' } },
    },
  };
}

export function openApiFiles(baseUrl: string): GeneratedFile[] {
  const document = openApiDocument(baseUrl);
  const yaml = toYaml(document, { aliasDuplicateObjects: false, lineWidth: 0 });
  return [
    { path: '/openapi.json', contentType: 'application/json; charset=utf-8', body: JSON.stringify(document, null, 1) },
    { path: '/openapi.yaml', contentType: 'application/yaml; charset=utf-8', body: yaml },
    { path: '/api/openapi.yaml', contentType: 'application/yaml; charset=utf-8', body: yaml },
  ];
}
