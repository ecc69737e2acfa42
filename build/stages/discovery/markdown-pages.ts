// /pricing.md and /auth.md: Markdown for agents that read a site's terms before they use it. Pricing states the one
// offer (free: price 0 USD) as a schema.org Offer, in a table and as JSON-LD; auth.md is the body of the auth docs
// page (src/docs/auth.md), so the recipe is written once.
import { AGENT_PATHS } from '../../../src/domain/agents/agent-surfaces.ts';
import { BRAND, DISCLAIMER } from '../../../src/domain/brand.ts';
import { LIMITS } from '../../../src/domain/contract/limits.ts';
import { SITE_PATHS } from '../../../src/domain/site-paths.ts';
import { loadDocs, type Doc } from '../../../src/docs/index.ts';
import type { StageContext } from '../stage.ts';
import type { GeneratedFile } from '../../site-writer.ts';
import { absolutizeLinks, table } from './markdown.ts';
import { MEDIA_TYPES, operationPath } from './site-links.ts';

/** The one offer: everything public, for free. */
export function freeOffer(baseUrl: string): Record<string, unknown> {
  return {
    '@context': 'https://schema.org',
    '@type': 'Offer',
    name: `${BRAND} public access`,
    description: 'The catalog API, the MCP and A2A endpoints, /ask, the pages and the discovery files.',
    price: 0,
    priceCurrency: 'USD',
    availability: 'https://schema.org/InStock',
    url: baseUrl + operationPath('getPricing'),
    seller: { '@type': 'Organization', name: BRAND, url: baseUrl + SITE_PATHS.home },
  };
}

export function pricingMarkdown(baseUrl: string): string {
  const offer = freeOffer(baseUrl);
  const url = (path: string) => baseUrl + path;
  return `# Pricing

${BRAND} is free. There is no paid tier, no API-key product, no billed developer sandbox and no account to create.

${table(
  ['@type', 'name', 'price', 'priceCurrency', 'availability'],
  ['left', 'left', 'right', 'left', 'left'],
  [['Offer', String(offer.name), '0', 'USD', 'https://schema.org/InStock']],
)}

What the offer covers: the JSON API (${url(operationPath('getVersioningPolicy'))}), the MCP endpoint (${url(AGENT_PATHS.mcp)}), the A2A
agent (${url(AGENT_PATHS.a2a)}), ${url(AGENT_PATHS.ask)}, every page and every discovery file. The only limit is the rate limit: ${LIMITS.rateLimit.max}
requests per ${LIMITS.rateLimit.windowSeconds} seconds per client (429 with \`Retry-After\` beyond it). No credential is needed: see ${url(operationPath('getAuthRecipe'))}.

${DISCLAIMER}

\`\`\`json
${JSON.stringify(offer, null, 2)}
\`\`\`
`;
}

export function authMarkdown(baseUrl: string, doc: Doc): string {
  return `${absolutizeLinks(doc.body, baseUrl).trim()}\n\n---\n\nAlso at ${baseUrl + SITE_PATHS.doc(doc.slug)}.\n`;
}

export function markdownPageFiles(ctx: Pick<StageContext, 'baseUrl'>): GeneratedFile[] {
  const auth = loadDocs().find((doc) => doc.slug === 'auth');
  if (!auth) throw new Error('src/docs/auth.md is missing: /auth.md is rendered from it');
  return [
    { path: operationPath('getPricing'), contentType: MEDIA_TYPES.markdown, body: pricingMarkdown(ctx.baseUrl) },
    { path: operationPath('getAuthRecipe'), contentType: MEDIA_TYPES.markdown, body: authMarkdown(ctx.baseUrl, auth) },
  ];
}
