// SERVICE.md 4.4 and 5: the staff identity probe, the probes that always challenge, the two OAuth metadata
// documents and the OAuth endpoints that say no authorization server is offered. Every URL is built from
// the configured base URL, never from the request's Host header.
import { createHash } from 'node:crypto';
import { BRAND } from '../../src/domain/brand.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { empty, json, type Handler, type HandlersFor } from '../http/handler.ts';
import type { Services } from '../services.ts';
import { authorizationServerMetadata, protectedResourceMetadata } from '../auth/auth-metadata.ts';
import { unauthorized } from '../auth/challenge.ts';
import { staffOnly, type StaffGuard } from '../auth/staff-guard.ts';

/** The metadata depends on configuration only: serialised once, with a strong ETag from its bytes. */
function cachedJson(body: unknown): Handler {
  const text = JSON.stringify(body);
  const etag = `"${createHash('sha256').update(text).digest('base64url').slice(0, 32)}"`;
  const headers = { 'Cache-Control': 'public, max-age=3600', ETag: etag };
  return (ctx) => {
    const inm = ctx.headers['if-none-match'];
    if (inm && (inm.trim() === '*' || inm.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))) return empty(304, headers);
    return json(200, text, headers);
  };
}

const notOffered = () =>
  new CatalogError(
    'authorization_server_not_offered',
    `${BRAND} runs no authorization server: it issues no access tokens, client registrations or identity assertions.`,
  );

type AuthOperations =
  | 'getStaffIdentity'
  | 'oauthResourceProbe'
  | 'agentAuthProbe'
  | 'getProtectedResourceMetadata'
  | 'getAuthorizationServerMetadata'
  | `oauth_${'authorize' | 'token' | 'register'}_${'get' | 'post'}`;

export function authHandlers(services: Services, guard: StaffGuard): HandlersFor<AuthOperations> {
  const { baseUrl } = services.config;
  const probe: Handler = () => {
    throw unauthorized(baseUrl, 'probe');
  };
  const notOfferedGet: Handler = () => json(200, notOffered().toBody());
  const notOfferedPost: Handler = () => {
    throw notOffered();
  };
  return {
    getStaffIdentity: staffOnly(guard, (_ctx, staff) => json(200, staff)),
    oauthResourceProbe: probe,
    agentAuthProbe: probe,
    getProtectedResourceMetadata: cachedJson(protectedResourceMetadata(baseUrl)),
    getAuthorizationServerMetadata: cachedJson(authorizationServerMetadata(baseUrl)),
    oauth_authorize_get: notOfferedGet,
    oauth_token_get: notOfferedGet,
    oauth_register_get: notOfferedGet,
    oauth_authorize_post: notOfferedPost,
    oauth_token_post: notOfferedPost,
    oauth_register_post: notOfferedPost,
  };
}
