// The docs MCP server (discovery at /.well-known/mcp/docs): search_docs, get_doc and list_docs over the site's
// Markdown docs pages from loadDocs(), read once, on the docs server's first call (the pages ship with the code; reading
// and parsing them at start delayed the first answer: bench/records/2026-11-24-start-time.md).
import { BRAND } from '../../src/domain/brand.ts';
import { DOCS_TOOLS, MCP_DOCS_INSTRUCTIONS, MCP_DOCS_SERVER_NAME, MCP_SERVER_VERSION } from '../../src/domain/agents/agent-surfaces.ts';
import type { Doc } from '../../src/docs/index.ts';
import { createMcpServer, mcpTool, ToolFailure, type McpServer } from './mcp-server.ts';

const STOP_WORDS = new Set(['a', 'an', 'and', 'are', 'can', 'do', 'does', 'for', 'how', 'i', 'in', 'is', 'it', 'of', 'on', 'or', 'the', 'to', 'what', 'with']);
const WEIGHTS = { title: 5, description: 3, body: 1 } as const;
const SNIPPET_CHARS = 240;

function words(text: string): string[] {
  return text
    .toLowerCase()
    .split(/[^\p{L}\p{N}_/-]+/u)
    .filter((word) => word.length > 1 && !STOP_WORDS.has(word));
}

function occurrences(haystack: string, needle: string): number {
  let count = 0;
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) count++;
  return count;
}

/** Plain text of Markdown, good enough for a snippet. */
function plain(markdown: string): string {
  return markdown
    .replace(/```[\s\S]*?```/g, ' ')
    .replace(/`([^`]*)`/g, '$1')
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/^#+\s*/gm, '')
    .replace(/[|*_>]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}

function snippet(doc: Doc, terms: string[]): string {
  const text = plain(doc.body);
  const lower = text.toLowerCase();
  const hit =
    terms
      .map((term) => lower.indexOf(term))
      .filter((at) => at >= 0)
      .sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, hit - SNIPPET_CHARS / 4);
  return (start > 0 ? '…' : '') + text.slice(start, start + SNIPPET_CHARS).trim() + (start + SNIPPET_CHARS < text.length ? '…' : '');
}

export function docsMcpServer(loadDocs: () => Promise<readonly Doc[]>, baseUrl: string): McpServer {
  const summary = (doc: Doc) => ({ slug: doc.slug, title: doc.title, description: doc.description, url: baseUrl + doc.path });
  type Pages = { docs: readonly Doc[]; lowered: Array<{ doc: Doc; title: string; description: string; body: string }> };
  let pages: Promise<Pages> | undefined;
  const read = () =>
    (pages ??= loadDocs().then((docs) => ({
      docs,
      lowered: docs.map((doc) => ({ doc, title: doc.title.toLowerCase(), description: doc.description.toLowerCase(), body: doc.body.toLowerCase() })),
    })));

  return createMcpServer({
    info: { name: MCP_DOCS_SERVER_NAME, title: `${BRAND} docs`, version: MCP_SERVER_VERSION, websiteUrl: `${baseUrl}/docs/` },
    instructions: MCP_DOCS_INSTRUCTIONS,
    resources: [],
    tools: [
      mcpTool(DOCS_TOOLS.search_docs, async (input) => {
        const terms = [...new Set(words(input.query))];
        const scored = (await read()).lowered
          .map((page) => ({
            page,
            score: terms.reduce(
              (sum, term) =>
                sum +
                occurrences(page.title, term) * WEIGHTS.title +
                occurrences(page.description, term) * WEIGHTS.description +
                Math.min(occurrences(page.body, term), 10) * WEIGHTS.body,
              0,
            ),
          }))
          .filter((entry) => entry.score > 0)
          .sort((a, b) => b.score - a.score || a.page.doc.order - b.page.doc.order);
        return { query: input.query, results: scored.map(({ page }) => ({ ...summary(page.doc), snippet: snippet(page.doc, terms) })) };
      }),
      mcpTool(DOCS_TOOLS.get_doc, async (input) => {
        const { docs } = await read();
        const doc = docs.find(
          (page) =>
            page.slug ===
            input.slug
              .trim()
              .toLowerCase()
              .replace(/^\/?docs\//, '')
              .replace(/\/$/, ''),
        );
        if (!doc)
          throw new ToolFailure(`No docs page has the slug '${input.slug}'.`, `Call list_docs for the slugs: ${docs.map((page) => page.slug).join(', ')}.`);
        return { ...summary(doc), markdown: doc.body };
      }),
      mcpTool(DOCS_TOOLS.list_docs, async () => ({ docs: (await read()).docs.map(summary) })),
    ],
  });
}
