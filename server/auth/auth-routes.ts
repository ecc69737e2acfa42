// SERVICE.md 4.4 and 5: the staff identity probe, the probes that always challenge, the two OAuth metadata
// documents and the OAuth endpoints that say no authorization server is offered. Every URL is built from
// the configured base URL, never from the request's Host header.
import { createHash } from 'node:crypto';
import { BRAND } from '../../src/domain/brand.ts';
import { CatalogError } from '../../src/domain/errors.ts';
import { sendJson } from '../http/reply.ts';
import type { Handler, Route } from '../http/router.ts';
import type { Services } from '../services.ts';
import { PROTECTED_RESOURCE_METADATA_PATH, unauthorized } from './challenge.ts';
import { staffOnly } from './staff-guard.ts';

export const AUTHORIZATION_SERVER_METADATA_PATH = '/.well-known/oauth-authorization-server';
export const OAUTH_ENDPOINTS = ['/oauth/authorize', '/oauth/token', '/oauth/register'] as const;

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
    const inm = ctx.req.headers['if-none-match'];
    if (inm && (inm.trim() === '*' || inm.split(',').some((tag) => tag.trim().replace(/^W\//, '') === etag))) {
      ctx.res.statusCode = 304;
      for (const [name, value] of Object.entries(headers)) ctx.res.setHeader(name, value);
      ctx.res.end();
      return;
    }
    sendJson(ctx.res, 200, text, headers);
  };
}

const notOffered = () =>
  new CatalogError(
    'authorization_server_not_offered',
    `${BRAND} runs no authorization server: it issues no access tokens, client registrations or identity assertions.`,
  );

export function authRoutes(services: Services): Route[] {
  const { baseUrl } = services.config;
  return [
    {
      method: 'GET',
      path: ['/api/v1/auth/me', '/v1/auth/me', '/api/upstream/auth/me'],
      handler: staffOnly(services, (ctx, staff) => sendJson(ctx.res, 200, staff)),
    },
    {
      method: 'GET',
      path: ['/oauth/resource', '/agent/auth'],
      handler: () => {
        throw unauthorized(baseUrl, 'probe');
      },
    },
    { method: 'GET', path: PROTECTED_RESOURCE_METADATA_PATH, handler: cachedJson(protectedResourceMetadata(baseUrl)) },
    { method: 'GET', path: AUTHORIZATION_SERVER_METADATA_PATH, handler: cachedJson(authorizationServerMetadata(baseUrl)) },
    { method: 'GET', path: OAUTH_ENDPOINTS, handler: (ctx) => sendJson(ctx.res, 200, notOffered().toBody()) },
    {
      method: 'POST',
      path: OAUTH_ENDPOINTS,
      handler: () => {
        throw notOffered();
      },
    },
  ];
}
