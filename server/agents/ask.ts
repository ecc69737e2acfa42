// The NLWeb-shaped /ask endpoint (SERVICE.md 4.3, CONTRACT.md "/ask"): a natural-language question in, a schema.org
// ItemList out, as JSON, JSON-LD or server-sent events (start, one item per result, complete; nothing else).
// A browser navigating to /ask is sent to the /browse page instead.
import type { IncomingHttpHeaders } from 'node:http';
import { z } from 'zod';
import { AGENT_PATHS, AGENT_RESULTS } from '../../src/domain/agents/agent-surfaces.ts';
import { BRAND } from '../../src/domain/brand.ts';
import { SEARCH_MODE_HEADER } from '../../src/domain/contract/response-headers.ts';
import { CatalogError, invalidParameter } from '../../src/domain/contract/errors.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { ASK_PARAMS, ASK_QUERY_NAMES } from '../../src/domain/agents/ask-input.ts';
import { checkedParam } from '../../src/domain/contract/listing-query.ts';
import { parseJsonBody } from '../http/body.ts';
import { EVENT_STREAM, fromPrepared, jsonResponse, sseEvent, type PreparedResponse } from '../http/prepared.ts';
import { empty, headerOf, type Handler, type RequestContext } from '../http/handler.ts';
import { canonicalJson, fingerprint, idempotencyKey, runIdempotent } from '../idempotency/idempotency.ts';
import type { IdempotencyStore } from '../idempotency/store.ts';
import type { Services } from '../services.ts';
import { listingTexts, searchForAgent, searchMode } from './agent-search.ts';
import { listingsBody } from '../catalog/listing-json.ts';
import { parseAccept, type AcceptRange } from '../http/media-types.ts';

export const ITEM_TYPE = 'SoftwareApplication';

export type AskFormat = 'json' | 'ld+json' | 'sse';

export interface AskInput {
  query: string;
  stream: boolean;
  limit: number;
}

const FORMAT_TYPES: Record<AskFormat, string> = {
  json: 'application/json; charset=utf-8',
  'ld+json': 'application/ld+json; charset=utf-8',
  sse: EVENT_STREAM,
};

const missingQuery = () =>
  new CatalogError('invalid_parameter', `Parameter 'query' is required (or 'q' or 'question'): the question to answer, at most ${LIMITS.ask} characters.`);

const SPECS = new Map(ASK_PARAMS.map((spec) => [spec.name, spec]));
const LIMIT = SPECS.get('limit')!;

/** A body's limit, held to the query parameter's rule. */
function bodyLimit(value: number): number {
  if (!Number.isInteger(value)) throw invalidParameter('limit', 'must be an integer');
  return checkedParam(LIMIT, String(value)) as number;
}

/** The question of a request: the first non-empty of query, q, question. */
function pickQuery(values: Partial<Record<(typeof ASK_QUERY_NAMES)[number], string>>): string | undefined {
  for (const name of ASK_QUERY_NAMES) {
    const value = values[name]?.trim();
    if (value) return value;
  }
  return undefined;
}

/** The query-string parameters, each checked by its spec; the question may still be missing (a POST body can carry it). */
function readAskParams(params: URLSearchParams): { query: string | undefined; stream: boolean; limit: number } {
  const values: Partial<Record<string, string | number>> = {};
  for (const spec of ASK_PARAMS) {
    const all = params.getAll(spec.name);
    if (all.length > 1) throw invalidParameter(spec.name, 'must be given at most once');
    const value = all.length === 1 ? checkedParam(spec, all[0]!) : undefined;
    if (value !== undefined) values[spec.name] = value;
  }
  const query = pickQuery(values as Partial<Record<(typeof ASK_QUERY_NAMES)[number], string>>);
  return { query, stream: values.stream === '1', limit: (values.limit as number | undefined) ?? AGENT_RESULTS.default };
}

export function parseAskQuery(params: URLSearchParams): AskInput {
  const { query, stream, limit } = readAskParams(params);
  if (query === undefined) throw missingQuery();
  return { query, stream, limit };
}

const AskBody = z.object({
  query: z.string().optional(),
  q: z.string().optional(),
  question: z.string().optional(),
  stream: z.boolean().optional(),
  limit: z.number().optional(),
});

/** POST body: optional JSON {query?, q?, question?, stream?: boolean, limit?}; the query string fills what it lacks. */
export function parseAskBody(body: unknown, params: URLSearchParams): AskInput {
  const parsed = AskBody.safeParse(body ?? {});
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const name = issue.path.length ? String(issue.path[0]) : 'body';
    const rule =
      name === 'body' ? 'must be a JSON object' : name === 'stream' ? 'must be a boolean' : name === 'limit' ? 'must be a number' : 'must be a string';
    throw new CatalogError('invalid_body', `'${name}' ${rule}.`, {
      resolution: `Send {"query": "...", "stream": false} with a question of at most ${LIMITS.ask} characters.`,
    });
  }
  const fromQuery = readAskParams(params);
  for (const name of ASK_QUERY_NAMES) {
    const value = parsed.data[name];
    if (value !== undefined) checkedParam(SPECS.get(name)!, value);
  }
  const query = pickQuery(parsed.data) ?? fromQuery.query;
  if (query === undefined) throw missingQuery();
  return { query, stream: parsed.data.stream ?? fromQuery.stream, limit: parsed.data.limit !== undefined ? bodyLimit(parsed.data.limit) : fromQuery.limit };
}

/**
 * SSE when text/event-stream is the preferred listed type (ties go to the one listed first); JSON-LD when
 * application/ld+json is explicitly accepted; JSON otherwise. A wildcard never selects SSE or JSON-LD.
 */
export function negotiateAsk(acceptHeader: string | undefined): AskFormat {
  const entries = parseAccept(acceptHeader);
  const find = (type: string) => entries.find((entry) => entry.type === type && entry.q > 0);
  const sse = find('text/event-stream');
  const ld = find('application/ld+json');
  const json = find('application/json');
  const rivals = [ld, json].filter((entry): entry is AcceptRange => entry !== undefined);
  if (sse && rivals.every((rival) => sse.q > rival.q || (sse.q === rival.q && sse.order < rival.order))) return 'sse';
  return ld ? 'ld+json' : 'json';
}

/** A browser document navigation (Fetch Metadata), as opposed to a script or agent asking for JSON. */
export function isDocumentNavigation(headers: IncomingHttpHeaders): boolean {
  return headers['sec-fetch-mode'] === 'navigate' && headers['sec-fetch-dest'] === 'document';
}

/** A ListItem's opening, spliced in place of its listing's opening brace: the listing fields plus @type (its url is already there). */
function listItemOpening(position: number): string {
  return `{"@type":"ListItem","position":${position},"item":{"@type":"${ITEM_TYPE}",`;
}

const LIST_ITEM_WRAP = { open: (index: number) => Buffer.from(listItemOpening(index + 1)), close: Buffer.from('}') };
const CLOSE_LIST = Buffer.from(']}');

/** Answers a parsed question in the negotiated format. */
export async function answerAsk(services: Services, input: AskInput, format: AskFormat): Promise<PreparedResponse> {
  const found = await searchForAgent(services, { query: input.query, limit: input.limit });
  const headers = { [SEARCH_MODE_HEADER]: searchMode(found), Vary: 'Accept, Sec-Fetch-Mode, Sec-Fetch-Dest' };
  if (format === 'sse') {
    const items = listingTexts(services, found).map((listing, i) => `${listItemOpening(i + 1)}${listing.slice(1)}}`);
    return {
      status: 200,
      contentType: FORMAT_TYPES.sse,
      headers,
      chunks: [
        sseEvent('start', JSON.stringify({ query: input.query, limit: input.limit })),
        ...items.map((item) => sseEvent('item', item)),
        sseEvent('complete', JSON.stringify({ count: items.length, hasMore: found.hasMore })),
      ],
    };
  }
  // Written as bytes from the stored listings: built as one string, a two-byte character in any listing made the
  // whole answer a two-byte string, and encoding it was a large share of an /ask request
  // (bench/records/2026-11-23-per-request-costs.md).
  const head = Buffer.from(
    `{"@context":"https://schema.org","@type":"ItemList","name":${JSON.stringify(`${BRAND} results for ${input.query}`)},` +
      `"query":${JSON.stringify(input.query)},"numberOfItems":${found.docs.length},"itemListElement":[`,
  );
  return jsonResponse(
    200,
    listingsBody(found.snapshot, found.docs, { baseUrl: services.config.baseUrl, head, tail: CLOSE_LIST, wrap: LIST_ITEM_WRAP }),
    FORMAT_TYPES[format],
    headers,
  );
}

function formatOf(ctx: RequestContext, input: AskInput): AskFormat {
  return input.stream ? 'sse' : negotiateAsk(headerOf(ctx.headers, 'accept'));
}

export function askGetHandler(services: Services): Handler {
  return async (ctx) => {
    if (isDocumentNavigation(ctx.headers)) {
      const query = ASK_QUERY_NAMES.map((name) => ctx.query.get(name)?.trim()).find(Boolean);
      return empty(302, {
        Location: query ? `${AGENT_PATHS.browse}?q=${encodeURIComponent(query)}` : AGENT_PATHS.browse,
        Vary: 'Accept, Sec-Fetch-Mode, Sec-Fetch-Dest',
      });
    }
    // GET is idempotent by itself: an Idempotency-Key on it is ignored.
    const input = parseAskQuery(ctx.query);
    return fromPrepared(await answerAsk(services, input, formatOf(ctx, input)));
  };
}

export function askPostHandler(services: Services, idempotency: IdempotencyStore): Handler {
  return async (ctx) => {
    const raw = await ctx.body();
    const key = idempotencyKey(ctx.headers);
    const body = parseJsonBody(ctx.headers, raw, { optional: true });
    const input = parseAskBody(body, ctx.query);
    const format = formatOf(ctx, input);
    const { response } = await runIdempotent(
      { store: idempotency, key, scope: `POST ${AGENT_PATHS.ask}`, fingerprint: () => fingerprint(canonicalJson(body ?? null), ctx.query.toString(), format) },
      () => answerAsk(services, input, format),
    );
    return fromPrepared(response);
  };
}
