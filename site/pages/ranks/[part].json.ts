// The listing ranks, in parts (src/page-model/rank-parts.ts): what a listing page's script reads to show its ranks.
import type { APIRoute, GetStaticPaths } from 'astro';
import { loadCatalog } from '../../../src/page-model/page-data.ts';

export const getStaticPaths = (async () => {
  const data = await loadCatalog();
  // Only this process's parts (page-data.ts).
  return [...data.rankParts.keys()].map((part) => ({ params: { part: String(part) } }));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ params }) => {
  const data = await loadCatalog();
  return new Response(JSON.stringify(data.rankParts.get(Number(params.part)) ?? {}), { headers: { 'Content-Type': 'application/json; charset=utf-8' } });
};
