// The two OAuth metadata documents (SERVICE.md 5.2, 5.3), built from the configured base URL, never from the
// request's Host header.
import { BRAND } from '../../src/domain/brand.ts';

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
