#!/usr/bin/env node
// catalog-mcp: the catalog's MCP tools over stdio, for clients that start a local process. It serves exactly the
// tools of the catalog instance it talks to (tools/list and tools/call are forwarded), so it never drifts from the
// service: CATALOG_URL (or --url) names a running instance, reached over Streamable HTTP at /mcp; CATALOG_DATA_DIR
// (or --data) names a local data directory or mirror, served in this process with no network, which needs the
// catalog repository this file sits in (the shim's code is not part of the published package).
// Plain JavaScript: Node does not strip types from files under node_modules, where npx installs this.
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { CallToolRequestSchema, ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';

const VERSION = '0.1.0';
export const DEFAULT_CATALOG_URL = 'http://localhost:8080';
const USAGE = `Usage: catalog-mcp [--url <catalog URL>] [--data <data dir or mirror>]

Serves the catalog's MCP tools over stdio.
  --url   a running catalog instance (default: CATALOG_URL, else ${DEFAULT_CATALOG_URL})
  --data  a local data directory or mirror, read offline (default: CATALOG_DATA_DIR); needs a catalog checkout
`;

/** Where the catalog's tools come from: a URL, or an in-process shim over a data directory (offline). */
async function upstream(options) {
  if (options.data) {
    const repo = resolve(dirname(fileURLToPath(import.meta.url)), '../../..');
    const serve = join(repo, 'server', 'offline-mcp.ts');
    if (!existsSync(serve))
      throw new Error(`--data needs a catalog checkout around this package (looked for ${serve}); use --url with a running instance instead`);
    const { offlineCatalog } = await import(pathToFileURL(serve).href);
    return offlineCatalog(resolve(options.data));
  }
  return { url: new URL('/mcp', options.url), fetch: globalThis.fetch, close: async () => {} };
}

async function main() {
  const { values } = parseArgs({
    options: { url: { type: 'string' }, data: { type: 'string' }, help: { type: 'boolean', short: 'h' }, version: { type: 'boolean' } },
  });
  if (values.help) return void process.stdout.write(USAGE);
  if (values.version) return void process.stdout.write(`${VERSION}\n`);
  const data = values.data || (values.url ? undefined : process.env.CATALOG_DATA_DIR) || undefined;
  const source = await upstream({ data, url: values.url || process.env.CATALOG_URL || DEFAULT_CATALOG_URL });

  const client = new Client({ name: 'catalog-mcp', version: VERSION });
  await client.connect(new StreamableHTTPClientTransport(source.url, { fetch: source.fetch }));
  const server = new Server({ name: 'catalog-mcp', version: VERSION }, { capabilities: { tools: {} }, instructions: client.getInstructions() });
  server.setRequestHandler(ListToolsRequestSchema, (request) => client.listTools(request.params));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    try {
      return await client.callTool(request.params);
    } catch (error) {
      // The catalog could not be reached or refused the call: a tool error the model can act on, not a crash.
      return { isError: true, content: [{ type: 'text', text: `catalog-mcp: ${error instanceof Error ? error.message : String(error)}` }] };
    }
  });
  const transport = new StdioServerTransport();
  let closing;
  // Closing the server closes its transport, which reports the close again: the first call does the work.
  const shutdown = () =>
    (closing ??= (async () => {
      await server.close().catch(() => {});
      await client.close().catch(() => {});
      await source.close();
    })());
  server.onclose = () => void shutdown();
  process.stdin.on('end', () => void shutdown().then(() => process.exit(0)));
  await server.connect(transport);
}

main().catch((error) => {
  // stdout is the protocol stream: every message for a person goes to stderr.
  process.stderr.write(`catalog-mcp: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exit(1);
});
