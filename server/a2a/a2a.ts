// The A2A agent (POST /a2a/v1): message/send of A2A 0.3 and SendMessage of A2A 1.0 search the public catalog
// and answer with a Message holding a short text part and a data part with the matching listings, each in the
// caller's own wire shape. The agent keeps no tasks and does not stream; those methods get the A2A errors.
import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import { AGENT_PATHS, AGENT_RESULTS } from '../../src/domain/agents/agent-surfaces.ts';
import { CATEGORY_SLUG_PATTERN } from '../../src/domain/listing/categories.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import { LISTING_TYPES, TYPE_LABELS, type ListingType } from '../../src/domain/listing/listing-types.ts';
import { listingTexts, searchForAgent, searchMode } from '../agents/agent-search.ts';
import { emptyResponse, fromPrepared, jsonResponse, type PreparedResponse } from '../http/prepared.ts';
import type { Handler } from '../http/handler.ts';
import { canonicalJson, fingerprint, idempotencyKey, runIdempotent } from '../idempotency/idempotency.ts';
import type { IdempotencyStore } from '../idempotency/store.ts';
import { classify, errorResponse, invoke, resultResponse, rpcMethod, RpcError, toRpcError, type RpcMethodTable } from '../json-rpc/json-rpc.ts';
import type { Services } from '../services.ts';
import { isJsonBody } from '../http/media-types.ts';

const Part = z.looseObject({ kind: z.string().optional(), text: z.string().optional(), data: z.unknown().optional() });
const Message = z.looseObject({
  messageId: z.string().optional(),
  contextId: z.string().optional(),
  role: z.string().optional(),
  parts: z.array(Part).min(1),
});
const SendParams = z.looseObject({ message: Message });

/** Optional structured input of a data part: {query, type, category, limit}. */
const DataInput = z.looseObject({
  query: z.string().optional(),
  q: z.string().optional(),
  question: z.string().optional(),
  type: z.enum(LISTING_TYPES).optional(),
  category: z.string().regex(CATEGORY_SLUG_PATTERN).optional(),
  limit: z.number().int().min(1).max(AGENT_RESULTS.max).optional(),
});

interface Search {
  query: string;
  type: ListingType | undefined;
  category: string | undefined;
  limit: number;
}

/** The question of a message: its text parts (0.3 `kind: "text"` or 1.0 parts without kind), refined by a data part. */
export function searchOf(message: z.output<typeof Message>): Search {
  const texts: string[] = [];
  let data: z.output<typeof DataInput> = {};
  for (const part of message.parts) {
    if (typeof part.text === 'string' && (part.kind === undefined || part.kind === 'text')) texts.push(part.text);
    else if (part.data !== undefined && (part.kind === undefined || part.kind === 'data')) {
      const parsed = DataInput.safeParse(part.data);
      if (!parsed.success) throw new RpcError('invalidParams', `The data part is not a valid search: ${parsed.error.issues[0]?.message ?? 'invalid'}.`);
      data = { ...data, ...parsed.data };
    }
  }
  const query = (texts.join(' ').trim() || data.query || data.q || data.question || '').trim();
  if (query === '')
    throw new RpcError('invalidParams', 'The message has no text to search the catalog for; send a text part such as "MCP server for Postgres".');
  if (query.length > LIMITS.ask) throw new RpcError('invalidParams', `The question must be at most ${LIMITS.ask} characters.`);
  return { query, type: data.type, category: data.category, limit: data.limit ?? AGENT_RESULTS.default };
}

interface Answer {
  text: string;
  data: { query: string; count: number; hasMore: boolean; searchMode: string; listings: unknown[] };
}

async function answer(services: Services, search: Search): Promise<Answer> {
  const found = await searchForAgent(services, {
    query: search.query,
    types: search.type ? [search.type] : undefined,
    category: search.category,
    limit: search.limit,
  });
  const listings = listingTexts(services, found).map((text) => JSON.parse(text) as { name: string; type: ListingType; url: string });
  const lines = listings.slice(0, 5).map((listing, i) => `${i + 1}. ${listing.name} (${TYPE_LABELS[listing.type].singular}) ${listing.url}`);
  const text =
    listings.length === 0
      ? `No listings match "${search.query}". Try fewer or broader words, or browse ${services.config.baseUrl}${AGENT_PATHS.browse}.`
      : `${listings.length} listing${listings.length === 1 ? '' : 's'} for "${search.query}", best first:\n${lines.join('\n')}`;
  return { text, data: { query: search.query, count: listings.length, hasMore: found.hasMore, searchMode: searchMode(found), listings } };
}

type Ctx = { services: Services };

const streamingUnsupported = () => {
  throw new RpcError('unsupportedOperation', 'Streaming is not supported by this agent (capabilities.streaming is false); use message/send or SendMessage.');
};
const noTasks = () => {
  throw new RpcError('taskNotFound', 'This agent answers with messages and keeps no tasks.');
};
const noPush = () => {
  throw new RpcError('pushNotificationNotSupported', 'Push notifications are not supported by this agent.');
};
const Any = z.unknown();

/**
 * Which wire shape a message speaks. SendMessage is A2A 1.0; message/send is 0.3 unless the message itself is
 * 1.0-shaped (a ROLE_* role, or parts without the `kind` that 0.3 requires): callers get answers in their own shape.
 */
export function dialectOf(method: string, message: z.output<typeof Message>): '0.3' | '1.0' {
  if (method === 'SendMessage') return '1.0';
  if (message.role?.startsWith('ROLE_') || message.parts.every((part) => part.kind === undefined)) return '1.0';
  return '0.3';
}

function sendMessage(method: string) {
  return rpcMethod(SendParams, async (params, { services }: Ctx) => {
    const { text, data } = await answer(services, searchOf(params.message));
    const messageId = randomUUID();
    const contextId = params.message.contextId ?? randomUUID();
    if (dialectOf(method, params.message) === '0.3') {
      return {
        kind: 'message',
        messageId,
        contextId,
        role: 'agent',
        parts: [
          { kind: 'text', text },
          { kind: 'data', data },
        ],
      };
    }
    return {
      message: {
        messageId,
        contextId,
        role: 'ROLE_AGENT',
        parts: [
          { text, mediaType: 'text/plain' },
          { data, mediaType: 'application/json' },
        ],
      },
    };
  });
}

/** A2A 0.3 (slash-style methods, `kind` discriminators) and 1.0 (PascalCase methods, proto-JSON) in one table. */
export const A2A_METHODS: RpcMethodTable<Ctx> = {
  'message/send': sendMessage('message/send'),
  SendMessage: sendMessage('SendMessage'),
  'message/stream': rpcMethod(Any, streamingUnsupported),
  SendStreamingMessage: rpcMethod(Any, streamingUnsupported),
  'tasks/get': rpcMethod(Any, noTasks),
  'tasks/cancel': rpcMethod(Any, noTasks),
  'tasks/resubscribe': rpcMethod(Any, noTasks),
  GetTask: rpcMethod(Any, noTasks),
  CancelTask: rpcMethod(Any, noTasks),
  SubscribeToTask: rpcMethod(Any, noTasks),
  'tasks/pushNotificationConfig/set': rpcMethod(Any, noPush),
  'tasks/pushNotificationConfig/get': rpcMethod(Any, noPush),
  'tasks/pushNotificationConfig/list': rpcMethod(Any, noPush),
  'tasks/pushNotificationConfig/delete': rpcMethod(Any, noPush),
  CreateTaskPushNotificationConfig: rpcMethod(Any, noPush),
  GetTaskPushNotificationConfig: rpcMethod(Any, noPush),
  ListTaskPushNotificationConfigs: rpcMethod(Any, noPush),
  DeleteTaskPushNotificationConfig: rpcMethod(Any, noPush),
};

const IDEMPOTENT_METHODS = new Set(['message/send', 'SendMessage']);
const JSON_TYPE = 'application/json; charset=utf-8';

async function respond(body: unknown, ctx: Ctx): Promise<PreparedResponse> {
  if (Array.isArray(body)) {
    return jsonResponse(
      200,
      JSON.stringify(errorResponse(null, new RpcError('invalidRequest', 'JSON-RPC batches are not supported; send one request per POST.'))),
      JSON_TYPE,
    );
  }
  const classified = classify(body);
  if (classified.kind === 'invalid') return jsonResponse(200, JSON.stringify(errorResponse(classified.id, classified.error)), JSON_TYPE);
  if (classified.kind !== 'request') return emptyResponse(202);
  const { request } = classified;
  try {
    return jsonResponse(200, JSON.stringify(resultResponse(request.id, await invoke(A2A_METHODS, request, ctx))), JSON_TYPE);
  } catch (error) {
    return jsonResponse(200, JSON.stringify(errorResponse(request.id, toRpcError(error, ctx.services.logger))), JSON_TYPE);
  }
}

export function a2aHandler(services: Services, idempotency: IdempotencyStore): Handler {
  return async (ctx) => {
    const raw = await ctx.body();
    const key = idempotencyKey(ctx.headers);
    if (!isJsonBody(ctx.headers)) {
      throw new CatalogError('unsupported_media_type', 'A2A messages are JSON-RPC: send Content-Type: application/json.');
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      return fromPrepared(
        jsonResponse(200, JSON.stringify(errorResponse(null, new RpcError('parseError', 'Parse error: the body is not valid JSON.'))), JSON_TYPE),
      );
    }
    const method = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as { method?: unknown }).method : undefined;
    const idempotent = typeof method === 'string' && IDEMPOTENT_METHODS.has(method);
    const { response } = await runIdempotent(
      {
        store: idempotency,
        key: idempotent ? key : undefined,
        scope: `POST ${AGENT_PATHS.a2a} ${String(method)}`,
        fingerprint: () => fingerprint(canonicalJson(body)),
      },
      () => respond(body, { services }),
    );
    return fromPrepared(response);
  };
}
