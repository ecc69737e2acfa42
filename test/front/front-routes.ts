// Every operation of the interface (src/domain/contract/operations.ts, which the contract tests hold equal to SERVICE.md
// and to the shim's routes) as concrete requests, plus the pages and the 404s, for comparing two servers.
import { OPERATIONS } from '../../src/domain/contract/operations.ts';

export interface ProbeRequest {
  name: string;
  path: string;
  init: RequestInit & { headers: Record<string, string> };
  /** An open-ended event stream: compare the status and the headers only. */
  stream?: boolean;
}

const rpc = (method: string, params?: unknown) => JSON.stringify({ jsonrpc: '2.0', id: 1, method, ...(params ? { params } : {}) });

function postBody(path: string, ids: string[]): string {
  if (path.endsWith('/listings/batch')) return JSON.stringify({ ids });
  if (path === '/a2a/v1')
    return rpc('message/send', { message: { kind: 'message', messageId: 'm1', contextId: 'c1', role: 'user', parts: [{ kind: 'text', text: 'pdf' }] } });
  if (path === '/ask') return JSON.stringify({ query: 'pdf tools' });
  if (path.includes('mcp')) return rpc('tools/list');
  return '{}';
}

export function probeRequests(sample: { ids: string[]; slug: string; type: string }): ProbeRequest[] {
  const requests: ProbeRequest[] = [];
  for (const op of OPERATIONS) {
    for (const template of op.paths) {
      const path = template.replace('{id}', encodeURIComponent(sample.ids[0]!));
      const query = op.id.startsWith('search') || path.endsWith('/listings') ? '?q=pdf&limit=5' : path === '/ask' || path === '/browse' ? '?q=pdf' : '';
      if (op.method === 'GET') {
        requests.push({ name: `GET ${template}`, path: path + query, init: { headers: {} }, stream: op.id === 'mcpSseHandshake' });
      } else {
        requests.push({
          name: `POST ${template}`,
          path,
          init: {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
            body: postBody(template, sample.ids),
          },
        });
      }
    }
  }
  const pages = [
    '/',
    `/listings/${sample.slug}/`,
    `/listings/${sample.slug}`,
    `/types/${sample.type}/`,
    '/docs/',
    '/login',
    '/mcp',
    '/browse?q=pdf&types=nope',
  ];
  for (const page of pages) requests.push({ name: `page ${page}`, path: page, init: { headers: { accept: 'text/html,application/xhtml+xml,*/*;q=0.8' } } });
  // A listing page answers Markdown to an Accept that prefers it, HTML to any other (the front sends those naming it to the shim).
  for (const accept of ['text/markdown', 'text/markdown;q=0.5, text/html', 'text/*', 'TEXT/MARKDOWN, */*;q=0.1']) {
    requests.push({ name: `listing page, Accept: ${accept}`, path: `/listings/${sample.slug}/`, init: { headers: { accept } } });
  }
  requests.push(
    { name: '404 JSON', path: '/no/such/path', init: { headers: {} } },
    { name: '404 page', path: '/no/such/page', init: { headers: { accept: 'text/html' } } },
    { name: 'a manifest of the build', path: '/negotiation.json', init: { headers: {} } },
    { name: 'a directory without index', path: '/listings/', init: { headers: {} } },
    { name: 'a file as a directory', path: '/llms.txt/', init: { headers: {} } },
    { name: 'api-catalog as JSON', path: '/.well-known/api-catalog', init: { headers: { accept: 'application/json' } } },
    { name: 'feed as JSON', path: '/feeds/listings.json', init: { headers: { accept: 'application/json;q=0.9, application/ld+json;q=0.5' } } },
    { name: 'a static file with a bad API-Version', path: '/llms.txt', init: { headers: { 'api-version': '2' } } },
    { name: 'POST on a static file', path: '/llms.txt', init: { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' } },
    { name: 'OPTIONS on a static file', path: '/openapi.json', init: { method: 'OPTIONS', headers: {} } },
    { name: 'OPTIONS on a route', path: '/api/v1/listings', init: { method: 'OPTIONS', headers: {} } },
    { name: 'a listing by an encoded path-style id', path: `/api/v1/listings/${encodeURIComponent(sample.ids[1]!)}`, init: { headers: {} } },
    // The Link header's cases on files the front serves: an entry point and a page with a query string, a file
    // that takes no Link; API-Version as sent exactly and padded.
    { name: 'the home page with a query', path: '/?ref=probe', init: { headers: {} } },
    { name: 'a listing page with a query', path: `/listings/${sample.slug}/?ref=probe`, init: { headers: {} } },
    { name: 'a file that takes no Link, with a query', path: '/llms.txt?ref=probe', init: { headers: {} } },
    { name: 'a page with API-Version: 1', path: `/listings/${sample.slug}/`, init: { headers: { 'api-version': '1' } } },
    { name: 'a file with a padded API-Version', path: '/openapi.json', init: { headers: { 'api-version': ' 1 ' } } },
  );
  return requests;
}
