// SERVICE.md 4.4 and 5: the staff identity probe, the probes that always challenge, the two OAuth metadata
// documents and the OAuth endpoints that say no authorization server is offered. Every URL is built from
// the configured base URL, never from the request's Host header.
import { createHash } from 'node:crypto';
import { BRAND } from '../../src/domain/brand.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { empty, json, type Handler, type HandlersFor } from '../http/handler.ts';
import type { Services } from '../services.ts';
import { unauthorized } from './challenge.ts';
import { staffOnly, type StaffGuard } from './staff-guard.ts';

/** RFC 9728 protected-resource metadata: an anonymous, credential-free resource (SERVICE.md 5.2). */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: baseUrl,
    resource_name: BRAND,
    authorization_servers: [baseUrl],
    resource_documentation: `${baseUrl}/auth.md`,
    bearer_methods_supported: ['header'],
    identity_types_supported: ['anonymous'],
    credential_types_supported: [],
  };
}

/**
 * RFC 8414 metadata of an authorization server that issues nothing (SERVICE.md 5.3): no grant or response
 * types and no token, authorization or registration endpoint; service_documentation explains why.
 */
export function authorizationServerMetadata(baseUrl: string) {
  return {
    issuer: baseUrl,
    service_documentation: `${baseUrl}/auth.md`,
    response_types_supported: [],
    grant_types_supported: [],
    scopes_supported: [],
    agent_auth: { register_uri: `${baseUrl}/oauth/register` },
  };
}

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
