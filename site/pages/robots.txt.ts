// robots.txt: everything may be crawled; the sitemap index lists every page.
import type { APIRoute } from 'astro';
import { operationHref } from '../../src/page-model/links.ts';

export const GET: APIRoute = ({ site }) => {
  const origin = site!.href.replace(/\/+$/, '');
  return new Response(`User-agent: *\nAllow: /\n\nSitemap: ${origin}${operationHref('getSitemap')}\n`, {
    headers: { 'Content-Type': 'text/plain; charset=utf-8' },
  });
};
