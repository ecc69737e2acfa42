// Which static paths are listing pages (SITE_PATHS.listing), so serving one counts as an open.
import { SITE_PATHS } from '../../src/domain/site-paths.ts';

const PREFIX = SITE_PATHS.listing('\u0000').split('\u0000')[0]!;

/** The slug of a listing page path (/listings/<slug>/, without the slash, or its file <slug>.html), or undefined. */
export function listingPageSlug(path: string): string | undefined {
  if (!path.startsWith(PREFIX)) return undefined;
  const slug = path.slice(PREFIX.length).replace(/(?:\/|\.html)$/, '');
  return slug.length > 0 && !slug.includes('/') ? slug : undefined;
}
