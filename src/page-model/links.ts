// Links from pages to the API and discovery files, taken from the operations table so a page can only link to
// a path that is documented (and so built or served); page-to-page links use SITE_PATHS.
import { OPERATIONS } from '../domain/contract/operations.ts';

export function operationHref(id: string, params: Record<string, string> = {}): string {
  const operation = OPERATIONS.find((op) => op.id === id);
  if (!operation) throw new Error(`no operation ${id} in src/domain/contract/operations.ts`);
  return operation.paths[0]!.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(params[name] ?? ''));
}

/** The JSON of one listing: GET /api/v1/listings/{id}. */
export const listingJsonHref = (slug: string): string => operationHref('getListing', { id: slug });
