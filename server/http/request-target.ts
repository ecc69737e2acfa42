// The request target (RFC 9112 3.2) reduced to the origin form every route and URL builder expects. A client may
// send the absolute form (GET http://host/path HTTP/1.1, as to a proxy): its scheme and authority are dropped and
// never reach an answer, since every URL the shim writes starts with PUBLIC_BASE_URL. The asterisk form belongs to
// OPTIONS only; the authority form to CONNECT, which the shim refuses before this point.
import { CatalogError } from '../../src/domain/contract/errors.ts';

const ABSOLUTE = /^[a-z][a-z0-9+.-]*:\/\/[^/?#]*/i;

/** The origin-form target (path and query) of a request target, or a 400 for anything else. */
export function originForm(target: string, method: string): string {
  if (target.startsWith('/')) {
    // "//evil.example/x" is a path here, but would be a network-path reference wherever it is echoed as a URL.
    return target.startsWith('//') ? target.replace(/^\/+/, '/') : target;
  }
  if (target === '*' && method === 'OPTIONS') return '*';
  const absolute = ABSOLUTE.exec(target);
  if (absolute) {
    const rest = target.slice(absolute[0].length);
    if (rest === '' || rest.startsWith('?')) return `/${rest}`;
    if (rest.startsWith('/')) return originForm(rest, method);
  }
  throw new CatalogError('invalid_parameter', 'The request target must be a path starting with /.', {
    resolution: 'Send the request line as METHOD /path?query HTTP/1.1.',
  });
}
