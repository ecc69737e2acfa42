// An MCP server as a method table: initialize (the session revisions), server/discover (the stateless
// revision), ping, tools and resources. Transport-free: the HTTP module hands it one classified request
// and the revision the request speaks, and gets back a JSON-RPC result or a thrown RpcError.
import { JsonText, JsonTextString } from './json-text.ts';
import { z } from 'zod';
import { MCP_SESSION_VERSIONS, MCP_VERSIONS, toolDescriptor, type ToolSpec } from '../../src/domain/agents/agent-surfaces.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { describeIssue, invoke, rpcMethod, RpcError, type JsonRpcRequest, type RpcMethod, type RpcMethodTable } from '../json-rpc/json-rpc.ts';

/** "session": 2025-03-26 to 2025-11-25 (initialize handshake); "stateless": 2026-07-28 (version in every _meta). */
export type McpRevision = 'session' | 'stateless';

export interface McpCall {
  revision: McpRevision;
  /** The request's protocol version when known (stateless _meta or the MCP-Protocol-Version header). */
  protocolVersion: string | undefined;
  signal: AbortSignal;
}

/** A tool failure the model can act on: answered as an isError result with a hint, not a protocol error. */
export class ToolFailure extends Error {
  readonly hint: string;
  constructor(message: string, hint: string) {
    super(message);
    this.name = 'ToolFailure';
    this.hint = hint;
  }
}

export interface McpTool {
  spec: ToolSpec;
  /**
   * Returns the structured output (it must match spec.output), as a value or as JSON text already made (JsonText);
   * throws ToolFailure or CatalogError to fail.
   */
  run(input: never, call: McpCall): ToolOutput | Promise<ToolOutput>;
}

type ToolOutput = Record<string, unknown> | JsonText;

export function mcpTool<S extends ToolSpec>(spec: S, run: (input: z.output<S['input']>, call: McpCall) => ToolOutput | Promise<ToolOutput>): McpTool {
  return { spec, run: run as McpTool['run'] };
}

export interface McpResource {
  uri: string;
  name: string;
  title: string;
  description: string;
  mimeType: string;
  read(call: McpCall): string;
}

export interface McpServerInfo {
  name: string;
  title: string;
  version: string;
  websiteUrl?: string;
}

export interface McpServerDefinition {
  info: McpServerInfo;
  instructions: string;
  tools: readonly McpTool[];
  resources: readonly McpResource[];
  extensions?: readonly McpExtension[];
}

/**
 * A protocol extension: declared under capabilities.extensions[id], answering its own methods, and owning a family of
 * resource URIs that resources/read resolves through it (e.g. the skills extension and skill://).
 */
export interface McpExtension {
  id: string;
  settings: Record<string, unknown>;
  methods: Readonly<Record<string, { rpc: RpcMethod<McpCall>; ttlMs?: number }>>;
  /** The contents of a URI the extension owns; undefined when the URI is not one of its. Throws RpcError for a bad one. */
  read?(uri: string, call: McpCall): { uri: string; mimeType: string; text: string } | undefined;
}

/** Cache hints of the stateless revision: lists change only with a deploy, resource contents with a rebuild. */
export const MCP_CACHE_TTL_MS = { lists: 3_600_000, resources: 300_000 } as const;

interface McpMethod {
  rpc: RpcMethod<McpCall>;
  /** Only in the session revisions (the handshake the stateless revision removed). */
  sessionOnly?: boolean;
  /** Cacheable in the stateless revision: ttlMs and cacheScope are added to the result. */
  ttlMs?: number;
}

const Params = z.looseObject({ _meta: z.looseObject({}).optional() });

/** The version to answer initialize with: the client's when supported, else the newest session revision. */
export function negotiateVersion(requested: unknown): string {
  return typeof requested === 'string' && (MCP_SESSION_VERSIONS as readonly string[]).includes(requested) ? requested : MCP_SESSION_VERSIONS[0];
}

export interface McpServer {
  readonly definition: McpServerDefinition;
  /** Answers one request; throws RpcError for protocol errors. */
  handle(request: JsonRpcRequest, call: McpCall): Promise<Record<string, unknown>>;
  /** Method names this server answers (for the docs and tests). */
  readonly methods: readonly string[];
}

export function createMcpServer(definition: McpServerDefinition): McpServer {
  const tools = new Map(definition.tools.map((tool) => [tool.spec.name, tool]));
  const resources = new Map(definition.resources.map((resource) => [resource.uri, resource]));
  const capabilities: Record<string, unknown> = { tools: { listChanged: false } };
  const extensions = definition.extensions ?? [];
  if (resources.size > 0 || extensions.some((extension) => extension.read)) capabilities.resources = { subscribe: false, listChanged: false };
  if (extensions.length > 0) capabilities.extensions = Object.fromEntries(extensions.map((extension) => [extension.id, extension.settings]));
  const serverInfo = {
    name: definition.info.name,
    title: definition.info.title,
    version: definition.info.version,
    ...(definition.info.websiteUrl ? { websiteUrl: definition.info.websiteUrl } : {}),
  };

  const callTool = async (name: string, args: Record<string, unknown>, call: McpCall): Promise<Record<string, unknown>> => {
    const tool = tools.get(name);
    if (!tool) throw new RpcError('invalidParams', `Unknown tool: ${name}`, { tools: [...tools.keys()] });
    const input = tool.spec.input.safeParse(args);
    if (!input.success) {
      return failure(`Invalid arguments for ${name}: ${describeIssue(input.error)}.`, `Call ${name} with arguments matching its inputSchema from tools/list.`);
    }
    try {
      const structured = await tool.run(input.data as never, call);
      const text = structured instanceof JsonText ? new JsonTextString(structured) : JSON.stringify(structured);
      return { content: [{ type: 'text', text }], structuredContent: structured };
    } catch (error) {
      if (error instanceof ToolFailure) return failure(error.message, error.hint);
      if (error instanceof CatalogError && error.status < 500) return failure(error.message, error.resolution);
      throw error;
    }
  };

  const table: Record<string, McpMethod> = {
    initialize: {
      sessionOnly: true,
      rpc: rpcMethod(Params.extend({ protocolVersion: z.string().optional() }), (params) => ({
        protocolVersion: negotiateVersion(params.protocolVersion),
        capabilities,
        serverInfo,
        instructions: definition.instructions,
      })),
    },
    'server/discover': {
      ttlMs: MCP_CACHE_TTL_MS.lists,
      rpc: rpcMethod(Params, () => ({ supportedVersions: MCP_VERSIONS, capabilities, serverInfo, instructions: definition.instructions })),
    },
    ping: { rpc: rpcMethod(Params, () => ({})) },
    'tools/list': {
      ttlMs: MCP_CACHE_TTL_MS.lists,
      rpc: rpcMethod(Params.extend({ cursor: z.string().optional() }), () => ({ tools: definition.tools.map((tool) => toolDescriptor(tool.spec)) })),
    },
    'tools/call': {
      rpc: rpcMethod(Params.extend({ name: z.string(), arguments: z.record(z.string(), z.unknown()).optional() }), (params, call) =>
        callTool(params.name, params.arguments ?? {}, call),
      ),
    },
  };
  if (capabilities.resources) {
    table['resources/list'] = {
      ttlMs: MCP_CACHE_TTL_MS.lists,
      rpc: rpcMethod(Params.extend({ cursor: z.string().optional() }), () => ({
        resources: definition.resources.map(({ uri, name, title, description, mimeType }) => ({ uri, name, title, description, mimeType })),
      })),
    };
    table['resources/templates/list'] = {
      ttlMs: MCP_CACHE_TTL_MS.lists,
      rpc: rpcMethod(Params.extend({ cursor: z.string().optional() }), () => ({ resourceTemplates: [] })),
    };
    table['resources/read'] = {
      ttlMs: MCP_CACHE_TTL_MS.resources,
      rpc: rpcMethod(Params.extend({ uri: z.string() }), (params, call) => {
        const resource = resources.get(params.uri);
        if (!resource) {
          for (const extension of extensions) {
            const contents = extension.read?.(params.uri, call);
            if (contents) return { contents: [contents] };
          }
        }
        // 2026-07-28 answers an unknown resource with invalid params (earlier revisions used -32002, now retired).
        if (!resource) throw new RpcError('invalidParams', `Resource not found: ${params.uri}`, { uri: params.uri, resources: [...resources.keys()] });
        return { contents: [{ uri: resource.uri, mimeType: resource.mimeType, text: resource.read(call) }] };
      }),
    };
  }
  for (const extension of extensions) for (const [name, method] of Object.entries(extension.methods)) table[name] = method;
  const rpcTable: RpcMethodTable<McpCall> = Object.fromEntries(Object.entries(table).map(([name, method]) => [name, method.rpc]));

  return {
    definition,
    methods: Object.keys(table),
    async handle(request, call) {
      const method = Object.hasOwn(table, request.method) ? table[request.method] : undefined;
      if (method?.sessionOnly && call.revision === 'stateless') {
        throw new RpcError('methodNotFound', `${request.method} is not part of the stateless revision; call server/discover instead.`);
      }
      const result = (await invoke(rpcTable, request, call)) as Record<string, unknown>;
      // server/discover exists only from 2026-07-28 on, so its result always carries that revision's fields.
      if (call.revision !== 'stateless' && request.method !== 'server/discover') return result;
      const decorated: Record<string, unknown> = { resultType: 'complete', ...result, _meta: { 'io.modelcontextprotocol/serverInfo': serverInfo } };
      if (method?.ttlMs !== undefined) {
        decorated.ttlMs = method.ttlMs;
        decorated.cacheScope = 'public';
      }
      return decorated;
    },
  };
}

function failure(message: string, hint: string): Record<string, unknown> {
  return { content: [{ type: 'text', text: `${message} ${hint}` }], isError: true };
}
