// Headers every answer carries: the page security set (CSP that the built pages satisfy, no framing, no
// cross-origin referrer leak) and CORS decided per route family. Public reads, discovery files, /ask and the
// JSON-RPC endpoints are open to every origin (they need no credential, and browser agents call them); staff
// routes, auth probes, the OAuth endpoints and /metrics are not (operations marked cors: 'closed'), so a page
// elsewhere cannot read them with a user's credentials. No preflight allows Authorization: the open routes need
// none, and the closed ones are not for browsers on other origins.
import FindMyWay from 'find-my-way';
import { OPERATIONS, routePath } from '../../src/domain/contract/operations.ts';

export {
  CONTENT_SECURITY_POLICY,
  CORS_ALLOWED_REQUEST_HEADERS,
  CORS_EXPOSED_HEADERS,
  PAGE_SECURITY_HEADERS,
} from '../../src/domain/contract/response-headers.ts';

export type CorsFamily = 'open' | 'closed';

/** The CORS family of a path, from the operations table (cors: 'closed'); anything else is open. */
export function corsPolicy(): (path: string) => CorsFamily {
  const closed = FindMyWay({ ignoreTrailingSlash: true, caseSensitive: true });
  const seen = new Set<string>();
  for (const op of OPERATIONS) {
    if (op.cors !== 'closed') continue;
    for (const path of op.paths.map(routePath)) {
      if (seen.has(path)) continue;
      seen.add(path);
      closed.on('GET', path, () => undefined);
    }
  }
  return (path) => (closed.find('GET', path) ? 'closed' : 'open');
}
