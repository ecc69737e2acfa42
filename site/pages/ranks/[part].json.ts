// The listing and owner ranks, in parts (src/page-model/rank-parts.ts): what the listing and owner pages' scripts read
// to show their ranks.
import type { APIRoute, GetStaticPaths } from 'astro';
import { loadCatalog } from '../../../src/page-model/page-data.ts';

export const getStaticPaths = (async () => {
  const data = await loadCatalog();
  // Only this process's parts (page-data.ts).
  return [...data.rankParts.keys()].map((part) => ({ params: { part: String(part) } }));
}) satisfies GetStaticPaths;

export const GET: APIRoute = async ({ params }) => {
  const data = await loadCatalog();
  return new Response(JSON.stringify(data.rankParts.get(Number(params.part)) ?? { listings: {}, owners: {} }), {
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
  });
};
