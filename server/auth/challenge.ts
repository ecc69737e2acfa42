// The one Bearer challenge of SERVICE.md 5.4 (RFC 6750 section 3, RFC 9728 section 5.1). Every 401 of the
// service carries it, so a client finds the protected-resource metadata from any refusal.
import { BRAND } from '../../src/domain/brand.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';

export const PROTECTED_RESOURCE_METADATA_PATH = '/.well-known/oauth-protected-resource';

/** Why a request is refused: no Bearer credential at all, a Bearer credential that failed, or a probe route. */
export type ChallengeReason = 'missing' | 'invalid_token' | 'probe';

const quoted = (value: string) => `"${value.replace(/["\\]/g, '\\$&')}"`;

/** `baseUrl` is the configured public origin, never a request's Host header. */
export function bearerChallenge(baseUrl: string, reason: ChallengeReason): string {
  const params = [`realm=${quoted(BRAND)}`];
  // RFC 6750 3.1: no error code when the request carried no Bearer credential; invalid_token when it did.
  if (reason === 'invalid_token') params.push('error="invalid_token"');
  params.push(`resource_metadata=${quoted(baseUrl + PROTECTED_RESOURCE_METADATA_PATH)}`);
  return `Bearer ${params.join(', ')}`;
}

const MESSAGES: Record<ChallengeReason, string> = {
  missing: 'This route needs a staff Bearer token in the Authorization header.',
  // Deliberately the same for every failure (expired, wrong key, wrong issuer, ...): no hint for an attacker.
  invalid_token: 'The Bearer token was not accepted.',
  probe: 'This endpoint is an authentication probe: it always answers with the Bearer challenge and issues no tokens.',
};

const PROBE_RESOLUTION =
  'The public catalog needs no credential: call /api/v1/listings without Authorization. Staff routes need a staff Bearer JWT (see /auth.md).';

export function unauthorized(baseUrl: string, reason: ChallengeReason): CatalogError {
  return new CatalogError('unauthorized', MESSAGES[reason], {
    ...(reason === 'probe' ? { resolution: PROBE_RESOLUTION } : {}),
    headers: { 'WWW-Authenticate': bearerChallenge(baseUrl, reason), 'Cache-Control': 'no-store' },
  });
}
