// The catalog MCP server: the four tools of SERVICE.md 4.3 and the ui://catalog/catalog.html resource, all
// answered from the live in-memory snapshot (services.catalog.current) through the same search the API uses.
import { BRAND, DISCLAIMER, TAGLINE } from '../../src/domain/brand.ts';
import { AGENT_PATHS, CATALOG_RESOURCE, CATALOG_TOOLS, MCP_INSTRUCTIONS, MCP_SERVER_NAME, MCP_SERVER_VERSION } from '../../src/domain/agents/agent-surfaces.ts';
import { LISTING_TYPES, TYPE_LABELS } from '../../src/domain/listing/listing-types.ts';
import { snapshotResource, type Snapshot } from '../catalog/snapshot.ts';
import { listingsBody } from '../catalog/listing-json.ts';
import type { Services } from '../services.ts';
import { listingTexts, searchForAgent, searchMode, topForAgent } from '../agents/agent-search.ts';
import { createMcpServer, mcpTool, ToolFailure, type McpServer } from './mcp-server.ts';
import { JsonText } from './json-text.ts';
import { skillsExtension } from '../skills/mcp-skills.ts';

const OPEN_ARRAY = Buffer.from('[');
const CLOSE_ARRAY = Buffer.from(']');

export function catalogMcpServer(services: Services): McpServer {
  const snapshot = () => services.catalog.current;
  const catalogView = snapshotResource('mcp-catalog-view', (current) => renderCatalogView(services, current));

  const tools = [
    mcpTool(CATALOG_TOOLS.search_catalog, async (input) => {
      const found = await searchForAgent(services, {
        query: input.query,
        types: input.type ? [input.type] : undefined,
        category: input.category,
        limit: input.limit,
      });
      return JsonText.object({
        query: input.query,
        items: JsonText.fromBytes(listingsBody(found.snapshot, found.docs, { baseUrl: services.config.baseUrl, head: OPEN_ARRAY, tail: CLOSE_ARRAY })),
        hasMore: found.hasMore,
        searchMode: searchMode(found),
      });
    }),
    mcpTool(CATALOG_TOOLS.load_skill, (input) => {
      const current = snapshot();
      const doc = current.store.findDoc(input.id);
      if (doc === undefined) {
        throw new ToolFailure(`No listing has the id '${input.id}'.`, 'Find the listing with search_catalog and pass the id or slug of one of its results.');
      }
      services.signals?.opened(current, doc);
      return JsonText.object({
        listing: JsonText.fromBytes(listingsBody(current, [doc], { baseUrl: services.config.baseUrl })),
        files: JsonText.of(current.store.readFilesJson(doc)),
      });
    }),
    mcpTool(CATALOG_TOOLS.top_catalog, (input) => {
      const top = topForAgent(services, { type: input.type, sort: input.sort, limit: input.limit });
      return JsonText.object({
        sort: top.sort,
        type: input.type ?? null,
        items: JsonText.fromBytes(listingsBody(top.snapshot, top.docs, { baseUrl: services.config.baseUrl, head: OPEN_ARRAY, tail: CLOSE_ARRAY })),
        hasMore: top.hasMore,
      });
    }),
    mcpTool(CATALOG_TOOLS.get_catalog_stats, () => ({ ...snapshot().store.stats })),
  ];

  return createMcpServer({
    info: { name: MCP_SERVER_NAME, title: BRAND, version: MCP_SERVER_VERSION, websiteUrl: services.config.baseUrl },
    instructions: MCP_INSTRUCTIONS,
    tools,
    extensions: [skillsExtension(services)],
    resources: [
      {
        ...CATALOG_RESOURCE,
        read() {
          return snapshot().get(catalogView);
        },
      },
    ],
  });
}

const escapeHtml = (text: string): string => text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const number = (n: number): string => n.toLocaleString('en-US');

interface ViewListing {
  name: string;
  description: string;
  url: string;
  installs: number;
  stars: number;
}

/** The ui:// resource: self-contained (inline CSS, no scripts, no remote assets), rebuilt once per snapshot. */
export function renderCatalogView(services: Services, snapshot: Snapshot, perType = 5): string {
  const { stats } = snapshot.store;
  const sections = LISTING_TYPES.map((type) => {
    const top = topForAgent(services, { type, limit: perType }, snapshot);
    const metric = top.sort === 'stars' ? 'stars' : 'installs';
    const rows = listingTexts(services, top)
      .map((text) => JSON.parse(text) as ViewListing)
      .map(
        (listing) =>
          `<li><a href="${escapeHtml(listing.url)}">${escapeHtml(listing.name)}</a> <span class="n">${number(listing[metric])} ${metric}</span>` +
          `<p>${escapeHtml(listing.description.slice(0, 160))}</p></li>`,
      )
      .join('');
    return `<section><h2>${TYPE_LABELS[type].plural} <span class="n">${number(stats.byType[type])}</span></h2><ol>${rows}</ol></section>`;
  }).join('');
  const base = services.config.baseUrl;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${BRAND}: top listings</title>
<style>
body{font:14px/1.45 system-ui,sans-serif;margin:0;padding:16px;color:#1b1f24;background:#fff}
h1{font-size:18px;margin:0 0 4px}h2{font-size:15px;margin:16px 0 6px}
.n{color:#57606a;font-weight:normal;font-size:12px}ol{margin:0;padding-left:20px}li{margin:0 0 6px}
p{margin:2px 0 0;color:#57606a;font-size:12px}a{color:#0969da;text-decoration:none}
dl{display:flex;flex-wrap:wrap;gap:4px 16px;margin:8px 0}dt{color:#57606a}dd{margin:0 0 0 4px;font-weight:600}
footer{margin-top:16px;font-size:11px;color:#57606a}
@media (prefers-color-scheme:dark){body{background:#0d1117;color:#e6edf3}a{color:#4493f8}.n,p,dt,footer{color:#8d96a0}}
</style></head><body>
<h1><a href="${escapeHtml(base)}/">${BRAND}</a></h1><p>${escapeHtml(TAGLINE)}</p>
<dl><dt>Listings</dt><dd>${number(stats.total)}</dd><dt>Installs</dt><dd>${number(stats.installs)}</dd><dt>Updated</dt><dd>${escapeHtml(stats.updatedAt)}</dd></dl>
${sections}
<footer>${escapeHtml(DISCLAIMER)} Search it from an agent with the search_catalog tool or <a href="${escapeHtml(base + AGENT_PATHS.ask)}">${escapeHtml(AGENT_PATHS.ask)}</a>.</footer>
</body></html>`;
}
