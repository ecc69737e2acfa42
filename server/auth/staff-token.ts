// Verifies staff Bearer JWTs with jose. The key material is resolved once, when the verifier is built at
// start, so a bad key file fails the start instead of every request. jose is loaded only when a key is configured.
import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type * as Jose from 'jose';
import type { JSONWebKeySet, JWTPayload, JWTVerifyGetKey } from 'jose';
import { lazyModule } from '../../src/lazy-module.ts';
import type { StaffProfile } from '../../src/domain/schemas.ts';
import { ConfigError, type StaffAuthConfig } from '../../src/config.ts';

export type StaffTokenResult =
  | { ok: true; profile: StaffProfile }
  /** `reason` is for the operator's log only; the client always gets the same refusal. */
  | { ok: false; reason: string; unexpected?: boolean };

export interface StaffTokenVerifier {
  verify(token: string): Promise<StaffTokenResult>;
}

/** Far above any real JWT; stops a huge header from reaching base64 and JSON decoding. */
const MAX_TOKEN_LENGTH = 8192;
const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

type VerificationKey = KeyObject | Uint8Array | JWTVerifyGetKey;

const jose = lazyModule<typeof Jose>('jose', import.meta.url);

function readSource(variable: string, value: string): string {
  try {
    return readFileSync(value, 'utf8');
  } catch (error) {
    throw new ConfigError(`Invalid configuration: ${variable}: cannot read ${value} (${(error as Error).message})`);
  }
}

/** PEM text as is (env files often carry it with literal \n), or the path of a PEM file. */
function publicKey(value: string): KeyObject {
  const pem = value.includes('-----BEGIN') ? value.replace(/\\n/g, '\n') : readSource('STAFF_JWT_PUBLIC_KEY', value);
  try {
    // A private key PEM yields its public half; a certificate yields its subject key.
    return createPublicKey(pem);
  } catch (error) {
    throw new ConfigError(`Invalid configuration: STAFF_JWT_PUBLIC_KEY: not a PEM public key (${(error as Error).message})`);
  }
}

/** The key source itself failed (a JWKS URL unreachable or serving junk): an outage, not a verdict on the token. */
class KeySourceError extends Error {
  override readonly name = 'KeySourceError';
}

/** An https URL fetched and cached by jose, inline JSON, or the path of a JWKS file. */
function jwks(value: string): JWTVerifyGetKey {
  if (/^https?:\/\//i.test(value)) {
    const { createRemoteJWKSet, errors } = jose();
    const remote = createRemoteJWKSet(new URL(value), { timeoutDuration: 5000, cooldownDuration: 30_000, cacheMaxAge: 10 * 60_000 });
    return async (header, token) => {
      try {
        return await remote(header, token);
      } catch (error) {
        // No key for the token's kid/alg is the token's fault; anything else is the JWKS endpoint's.
        if (error instanceof errors.JWKSNoMatchingKey || error instanceof errors.JWKSMultipleMatchingKeys || error instanceof errors.JOSENotSupported)
          throw error;
        throw new KeySourceError(`JWKS ${value} unavailable: ${(error as Error).message}`, { cause: error });
      }
    };
  }
  const text = value.startsWith('{') ? value : readSource('STAFF_JWT_JWKS', value);
  let set: unknown;
  try {
    set = JSON.parse(text);
  } catch {
    throw new ConfigError('Invalid configuration: STAFF_JWT_JWKS: not JSON');
  }
  if (!set || typeof set !== 'object' || !Array.isArray((set as { keys?: unknown }).keys))
    throw new ConfigError('Invalid configuration: STAFF_JWT_JWKS: not a JWK Set (no "keys" array)');
  return jose().createLocalJWKSet(set as JSONWebKeySet);
}

function resolveKey(key: StaffAuthConfig['key']): VerificationKey | undefined {
  switch (key.kind) {
    case 'none':
      return undefined;
    case 'public-key':
      return publicKey(key.value);
    case 'jwks':
      return jwks(key.value);
    case 'secret':
      return new TextEncoder().encode(key.value);
  }
}

/** The role claim by its exact name, else by a dotted path into nested claims (e.g. realm_access.roles). */
function claimAt(payload: JWTPayload, name: string): unknown {
  if (Object.hasOwn(payload, name)) return payload[name];
  let value: unknown = payload;
  for (const part of name.split('.')) {
    if (!value || typeof value !== 'object' || !Object.hasOwn(value, part)) return undefined;
    value = (value as Record<string, unknown>)[part];
  }
  return value;
}

/** An array of role names, or one space-separated string (the shape of an OAuth scope claim). */
function rolesOf(value: unknown): string[] {
  if (Array.isArray(value)) return value.filter((role): role is string => typeof role === 'string');
  if (typeof value === 'string') return value.split(/\s+/).filter(Boolean);
  return [];
}

const isoFromSeconds = (seconds: number) => new Date(seconds * 1000).toISOString();
const stringClaim = (value: unknown) => (typeof value === 'string' && value !== '' ? value : null);

export function createStaffTokenVerifier(auth: StaffAuthConfig, baseUrl: string): StaffTokenVerifier {
  const key = resolveKey(auth.key);
  const options = {
    algorithms: auth.algorithms,
    issuer: auth.issuer,
    audience: auth.audience ?? baseUrl,
    clockTolerance: auth.clockSkewSeconds,
    requiredClaims: ['sub', 'exp'],
  };

  return {
    async verify(token) {
      if (!key) return { ok: false, reason: 'no staff key is configured' };
      if (token.length > MAX_TOKEN_LENGTH || !COMPACT_JWS.test(token)) return { ok: false, reason: 'not a compact JWS' };
      const { jwtVerify, errors } = jose();
      let payload: JWTPayload;
      try {
        // Overloads differ by key kind; each branch hands jose the key type it resolves.
        ({ payload } = typeof key === 'function' ? await jwtVerify(token, key, options) : await jwtVerify(token, key, options));
      } catch (error) {
        if (error instanceof KeySourceError) return { ok: false, reason: error.message, unexpected: true };
        if (error instanceof errors.JOSEError) return { ok: false, reason: error.code };
        // jose throws TypeError when the configured key does not fit the alg the token's header names.
        return { ok: false, reason: (error as Error).message };
      }
      const roles = rolesOf(claimAt(payload, auth.roleClaim));
      if (!roles.includes(auth.role)) return { ok: false, reason: `role claim ${auth.roleClaim} lacks ${auth.role}` };
      const expiresAt = new Date((payload.exp ?? 0) * 1000);
      if (Number.isNaN(expiresAt.getTime())) return { ok: false, reason: 'exp out of range' };
      const issuedAt = typeof payload.iat === 'number' && Number.isFinite(new Date(payload.iat * 1000).getTime()) ? isoFromSeconds(payload.iat) : null;
      return {
        ok: true,
        profile: {
          subject: payload.sub!,
          name: stringClaim(payload.name),
          email: stringClaim(payload.email),
          roles,
          issuer: payload.iss ?? '',
          issuedAt,
          expiresAt: expiresAt.toISOString(),
        },
      };
    },
  };
}
