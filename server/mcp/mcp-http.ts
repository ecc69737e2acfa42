// MCP over HTTP for the shim: the Streamable HTTP POST (JSON answers; the server is stateless, so there is no
// Mcp-Session-Id and no standalone GET stream), the same JSON-RPC wrapped as one SSE `message` event on
// /.well-known/mcp/sse, and that path's GET handshake. Protocol revisions are told apart per request: the
// stateless revision by params._meta, the session revisions by initialize and the MCP-Protocol-Version header.
import { JsonText, stringify } from './json-text.ts';
import type { IncomingHttpHeaders } from 'node:http';
import type { Logger } from 'pino';
import { AGENT_PATHS, MCP_BATCH_VERSIONS, MCP_SESSION_VERSIONS, MCP_STATELESS_VERSIONS, MCP_VERSIONS } from '../../src/domain/agents/agent-surfaces.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { EVENT_STREAM, emptyResponse, fromPrepared, jsonResponse, openEventStream, sseEvent, textOf, type PreparedResponse } from '../http/prepared.ts';
import { headerOf, type Handler } from '../http/handler.ts';
import { canonicalJson, fingerprint, idempotencyKey, runIdempotent } from '../idempotency/idempotency.ts';
import type { IdempotencyStore } from '../idempotency/store.ts';
import { LIMITS } from '../../src/domain/contract/limits.ts';
import {
  batchBudgetSpent,
  batchTooLarge,
  classify,
  errorResponse,
  resultResponse,
  RpcError,
  toRpcError,
  type JsonRpcRequest,
  type JsonRpcResponse,
} from '../json-rpc/json-rpc.ts';
import { rateLimitKey } from '../http/client-ip.ts';
import type { Services } from '../services.ts';
import type { McpCall, McpRevision, McpServer } from './mcp-server.ts';
import type { SseSessions } from './sse-sessions.ts';
import { isJsonBody } from '../http/media-types.ts';

const JSON_TYPE = 'application/json; charset=utf-8';
const META_VERSION = 'io.modelcontextprotocol/protocolVersion';

export interface McpEndpoint {
  server: McpServer;
  /** Scope of Idempotency-Key: the endpoint path. */
  path: string;
  /** json: Streamable HTTP; sse: the answer as one `message` event (POST /.well-known/mcp/sse). */
  wrap: 'json' | 'sse';
}

export interface McpHttpDeps {
  services: Services;
  idempotency: IdempotencyStore;
  sessions: SseSessions;
}

/** One answered message: the HTTP status it calls for and the JSON-RPC response, if it gets one. */
interface Answer {
  status: number;
  response?: JsonRpcResponse;
}

type Revision = { ok: true; revision: McpRevision; version: string | undefined } | { ok: false; error: RpcError; status: number };

/**
 * The revision a request speaks. 2026-07-28 puts the version in every request's _meta, which must agree with the
 * MCP-Protocol-Version header; session revisions send only the header (none on initialize, and none at all in
 * 2025-03-26). A version the server does not speak is an UnsupportedProtocolVersion error (HTTP 400).
 */
export function revisionOf(request: JsonRpcRequest, headerVersion: string | undefined, methodHeader: string | undefined): Revision {
  const meta = request.params?._meta;
  const metaRecord = meta !== null && typeof meta === 'object' ? (meta as Record<string, unknown>) : {};
  const metaVersion = metaRecord[META_VERSION] ?? metaRecord.protocolVersion;
  const unsupported = (requested: string): Revision => ({
    ok: false,
    status: 400,
    error: new RpcError('unsupportedProtocolVersion', `Unsupported protocol version: ${requested}`, { supported: MCP_VERSIONS, requested }),
  });
  if (metaVersion !== undefined) {
    if (typeof metaVersion !== 'string') {
      const field = META_VERSION in metaRecord ? META_VERSION : 'protocolVersion';
      return {
        ok: false,
        status: 200,
        error: new RpcError(
          'invalidParams',
          `Invalid params: _meta['${field}'] must be a string naming a protocol version, not ${metaVersion === null ? 'null' : Array.isArray(metaVersion) ? 'an array' : `a ${typeof metaVersion}`}.`,
          { supported: MCP_VERSIONS },
        ),
      };
    }
    if (headerVersion !== undefined && headerVersion !== metaVersion) {
      return {
        ok: false,
        status: 400,
        error: new RpcError('headerMismatch', `MCP-Protocol-Version header ${headerVersion} does not match _meta ${metaVersion}.`),
      };
    }
    if ((MCP_STATELESS_VERSIONS as readonly string[]).includes(metaVersion)) {
      if (methodHeader !== undefined && methodHeader !== request.method) {
        return {
          ok: false,
          status: 400,
          error: new RpcError('headerMismatch', `Mcp-Method header ${methodHeader} does not match the method ${request.method}.`),
        };
      }
      return { ok: true, revision: 'stateless', version: metaVersion };
    }
    if ((MCP_SESSION_VERSIONS as readonly string[]).includes(metaVersion)) return { ok: true, revision: 'session', version: metaVersion };
    return unsupported(metaVersion);
  }
  if (headerVersion === undefined) return { ok: true, revision: 'session', version: undefined };
  if ((MCP_STATELESS_VERSIONS as readonly string[]).includes(headerVersion)) return { ok: true, revision: 'stateless', version: headerVersion };
  if ((MCP_SESSION_VERSIONS as readonly string[]).includes(headerVersion)) return { ok: true, revision: 'session', version: headerVersion };
  return unsupported(headerVersion);
}

function hasStatelessMeta(message: unknown): boolean {
  const params = (message as { params?: { _meta?: Record<string, unknown> } } | null)?.params;
  return params?._meta !== undefined && typeof params._meta === 'object' && params._meta !== null && META_VERSION in params._meta;
}

/** Answers the decoded body of one POST: a message, or a batch where the revision allows one. */
export async function answerBody(server: McpServer, body: unknown, headers: IncomingHttpHeaders, signal: AbortSignal, logger: Logger): Promise<BodyOutcome> {
  const headerVersion = headerOf(headers, 'mcp-protocol-version');
  const methodHeader = headerOf(headers, 'mcp-method');

  const answerOne = async (message: unknown, inBatch: boolean): Promise<Answer> => {
    const classified = classify(message);
    if (classified.kind === 'invalid') return { status: 200, response: errorResponse(classified.id, classified.error) };
    if (classified.kind === 'response') return { status: 202 };
    const { request } = classified;
    const id = classified.kind === 'request' ? classified.request.id : null;
    const revision = revisionOf(request, headerVersion, methodHeader);
    if (!revision.ok) return { status: revision.status, response: errorResponse(id, revision.error) };
    // JSON-RPC: a notification is never answered, whatever its method.
    if (classified.kind === 'notification') return { status: 202 };
    if (inBatch && request.method === 'initialize') {
      return { status: 200, response: errorResponse(id, new RpcError('invalidRequest', 'initialize must not be part of a JSON-RPC batch.')) };
    }
    const call: McpCall = { revision: revision.revision, protocolVersion: revision.version, signal };
    try {
      return { status: 200, response: resultResponse(classified.request.id, await server.handle(request, call)) };
    } catch (error) {
      return { status: 200, response: errorResponse(classified.request.id, toRpcError(error, logger)) };
    }
  };

  if (!Array.isArray(body)) {
    const answer = await answerOne(body, false);
    return answer.response ? { status: answer.status, payload: answer.response } : { status: answer.status };
  }
  if (body.length === 0) return { status: 200, payload: errorResponse(null, new RpcError('invalidRequest', 'An empty batch is not a valid request.')) };
  // Batches were part of 2025-03-26 only; without a version header a request is taken as 2025-03-26 (MCP 2025-06-18, "Protocol Version Header").
  const batchVersion = headerVersion ?? MCP_BATCH_VERSIONS[0]!;
  if (!MCP_BATCH_VERSIONS.includes(batchVersion) || body.some(hasStatelessMeta)) {
    return {
      status: 200,
      payload: errorResponse(
        null,
        new RpcError('invalidRequest', `JSON-RPC batches are only accepted from ${MCP_BATCH_VERSIONS.join(', ')} clients; send one message per request.`),
      ),
    };
  }
  const tooLarge = batchTooLarge(body.length);
  if (tooLarge) return { status: 200, payload: errorResponse(null, tooLarge) };
  // One entry at a time, yielding between them: a batch must not hold the event loop (or every other client)
  // for the length of its work. Answers stop growing at the byte budget: the entries past it get an error each.
  // Each answer is serialised once, to count it against the budget, and sent as those bytes.
  const responses: JsonText[] = [];
  let bytes = 0;
  for (const message of body) {
    if (signal.aborted) break;
    const answer = await answerOne(message, true);
    await new Promise<void>((resolve) => setImmediate(resolve));
    if (!answer.response) continue;
    const serialised = stringify(answer.response);
    if (bytes + serialised.length > LIMITS.jsonRpcBatch.responseBytes && 'result' in answer.response) {
      responses.push(JsonText.fromBytes(stringify(errorResponse(answer.response.id, batchBudgetSpent()))));
      bytes += 200;
      continue;
    }
    bytes += serialised.length;
    responses.push(JsonText.fromBytes(serialised));
  }
  return responses.length > 0 ? { status: 200, payload: responses } : { status: 202 };
}

/** The answer to one POST body: a response, a batch's responses as their JSON, or none (202). */
interface BodyOutcome {
  status: number;
  payload?: JsonRpcResponse | JsonText[];
}

function render(outcome: BodyOutcome, wrap: McpEndpoint['wrap']): PreparedResponse {
  if (outcome.payload === undefined) return emptyResponse(outcome.status);
  const body = stringify(outcome.payload);
  if (wrap === 'sse' && outcome.status === 200) return { status: 200, contentType: EVENT_STREAM, chunks: [sseEvent('message', body.toString('utf8'))] };
  return jsonResponse(outcome.status, body, JSON_TYPE);
}

const isToolCall = (body: unknown): boolean =>
  typeof body === 'object' && body !== null && !Array.isArray(body) && (body as { method?: unknown }).method === 'tools/call' && 'id' in body;

/** POST handler of an MCP endpoint. */
export function mcpPostHandler(deps: McpHttpDeps, endpoint: McpEndpoint): Handler {
  const { services, idempotency, sessions } = deps;
  return async (ctx) => {
    const raw = await ctx.body();
    const key = idempotencyKey(ctx.headers);
    if (!isJsonBody(ctx.headers)) throw new CatalogError('unsupported_media_type', 'MCP messages are JSON: send Content-Type: application/json.');
    const sessionId = endpoint.wrap === 'sse' ? (ctx.query.get('sessionId') ?? undefined) : undefined;
    if (sessionId !== undefined && !sessions.has(sessionId)) {
      throw new CatalogError('not_found', `No open SSE session has the id '${sessionId}'.`, {
        resolution: `Open GET ${AGENT_PATHS.mcpSse} again and POST to the endpoint its first event names.`,
      });
    }
    let body: unknown;
    try {
      body = JSON.parse(raw.toString('utf8'));
    } catch {
      // Answered as the endpoint answers everything else: /.well-known/mcp/sse as an event stream.
      return fromPrepared(
        render(
          { status: 200, payload: errorResponse(null, new RpcError('parseError', 'Parse error: the body is not valid JSON.')) },
          sessionId === undefined ? endpoint.wrap : 'json',
        ),
      );
    }
    // A batch costs one request per entry: the pipeline took one, the rest are taken here (only for a batch
    // within the entry limit; a larger one is refused whole without running anything).
    let limitHeaders: Record<string, string | number> | undefined;
    if (Array.isArray(body) && body.length > 1 && !batchTooLarge(body.length)) {
      const decision = await services.rateLimiter.consume(rateLimitKey(ctx.clientIp), body.length - 1);
      limitHeaders = services.rateLimiter.headers(decision);
      if (!decision.allowed) {
        throw new CatalogError(
          'rate_limited',
          `This batch of ${body.length} requests exceeds the ${decision.limit} requests a client may make in ${services.config.rateLimit.windowSeconds} seconds.`,
          {
            headers: {
              ...Object.fromEntries(Object.entries(limitHeaders).map(([name, value]) => [name, String(value)])),
              'Retry-After': String(Math.max(1, decision.reset)),
            },
            resolution: 'Each entry of a JSON-RPC batch counts as one request: send fewer, or wait for the number of seconds in Retry-After.',
          },
        );
      }
    }
    const work = async () =>
      render(await answerBody(endpoint.server, body, ctx.headers, ctx.signal, services.logger), sessionId === undefined ? endpoint.wrap : 'json');
    if (sessionId !== undefined) {
      // HTTP+SSE transport: the answer travels on the session's stream; the POST itself is only accepted.
      const response = await work();
      if (response.status !== 200) return fromPrepared(response, limitHeaders);
      sessions.deliver(sessionId, textOf(response));
      return fromPrepared(emptyResponse(202), limitHeaders);
    }
    const { response } = await runIdempotent(
      {
        store: idempotency,
        key: isToolCall(body) ? key : undefined,
        scope: `POST ${endpoint.path} tools/call`,
        fingerprint: () => fingerprint(canonicalJson(body)),
      },
      work,
    );
    return fromPrepared(response, limitHeaders);
  };
}

/** GET /.well-known/mcp/sse: the handshake. The first event names the POST endpoint; comments keep it alive. */
export function mcpSseHandshake(deps: McpHttpDeps): Handler {
  return async (ctx) => {
    if (deps.sessions.full) throw new CatalogError('service_unavailable', 'Too many open MCP SSE streams; retry shortly or use Streamable HTTP.');
    const { keepAliveSeconds, maxLifetimeSeconds } = deps.services.config.sse;
    const { stream, reply } = openEventStream(ctx.signal, keepAliveSeconds * 1000);
    const id = deps.sessions.open(stream);
    // A relative URI: clients resolve it against the stream URL, so it works behind any proxy or port.
    stream.send('endpoint', `${AGENT_PATHS.mcpSse}?sessionId=${id}`);
    // No stream lives for ever: at its maximum age it ends, and the client opens a new one (a new session).
    const lifetime = setTimeout(() => {
      stream.comment(`maximum lifetime of ${maxLifetimeSeconds} s reached; reconnect`);
      stream.close();
    }, maxLifetimeSeconds * 1000);
    lifetime.unref();
    stream.onClose(() => clearTimeout(lifetime));
    return reply;
  };
}

/**
 * Whether a GET asks only for an event stream, as the Streamable HTTP client does when it looks for a standalone
 * stream; browsers and JSON readers always accept something else too.
 */
export function wantsOnlyEventStream(accept: string | undefined): boolean {
  if (!accept) return false;
  const types = accept
    .split(',')
    .map((part) => part.split(';'))
    .filter((params) => !params.slice(1).some((p) => /^\s*q\s*=\s*0(\.0*)?\s*$/.test(p)))
    .map((params) => params[0]!.trim().toLowerCase());
  return types.includes('text/event-stream') && types.every((type) => type === 'text/event-stream');
}

/**
 * GET on an MCP endpoint path: the built static document (discovery JSON, or the HTML hub at /mcp), but 405 for a
 * client looking for a standalone SSE stream, which this stateless server does not offer (MCP Streamable HTTP:
 * "the server MUST either return text/event-stream or 405"). A 200 with another body would make clients reconnect.
 */
export function mcpGetHandler(services: Services): Handler {
  return async (ctx) => {
    if (wantsOnlyEventStream(headerOf(ctx.headers, 'accept'))) {
      throw new CatalogError('method_not_allowed', `${ctx.path} offers no standalone SSE stream; POST JSON-RPC messages to it.`, {
        headers: { Allow: 'GET, HEAD, POST' },
        resolution: 'POST each JSON-RPC message; answers come back in the response. GET serves the discovery document as JSON.',
      });
    }
    const file = await services.catalog.current.files.reply(ctx);
    if (file) return file;
    throw new CatalogError('method_not_allowed', `GET is not served on ${ctx.path}; POST JSON-RPC messages to it.`, { headers: { Allow: 'POST' } });
  };
}
