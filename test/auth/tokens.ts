// Real JWTs for the auth tests: keys made with jose, tokens signed with SignJWT, and the exact challenges.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SignJWT, type CryptoKey, type JWTPayload } from 'jose';
import { TEST_BASE_URL } from '../support/server.ts';

export const ISSUER = 'https://id.catalog.test';
export const METADATA_URL = `${TEST_BASE_URL}/.well-known/oauth-protected-resource`;
export const CHALLENGE = `Bearer realm="catalog", resource_metadata="${METADATA_URL}"`;
export const INVALID_TOKEN_CHALLENGE = `Bearer realm="catalog", error="invalid_token", resource_metadata="${METADATA_URL}"`;

export const now = () => Math.floor(Date.now() / 1000);

export interface MintOptions {
  alg?: string;
  kid?: string;
  issuer?: string | undefined;
  audience?: string | undefined;
  subject?: string | undefined;
  /** Seconds from now; undefined leaves exp out. */
  expiresIn?: number | undefined;
  notBefore?: number;
}

/** A token the default test configuration accepts, unless options or claims say otherwise. */
export async function mint(key: CryptoKey | Uint8Array, claims: JWTPayload = { roles: ['staff'] }, options: MintOptions = {}): Promise<string> {
  const opts = { alg: 'RS256', issuer: ISSUER, audience: TEST_BASE_URL, subject: 'staff-1', expiresIn: 600, ...options };
  const jwt = new SignJWT(claims).setProtectedHeader({ alg: opts.alg, typ: 'JWT', ...(opts.kid ? { kid: opts.kid } : {}) }).setIssuedAt();
  if (opts.issuer !== undefined) jwt.setIssuer(opts.issuer);
  if (opts.audience !== undefined) jwt.setAudience(opts.audience);
  if (opts.subject !== undefined) jwt.setSubject(opts.subject);
  if (opts.expiresIn !== undefined) jwt.setExpirationTime(now() + opts.expiresIn);
  if (opts.notBefore !== undefined) jwt.setNotBefore(now() + opts.notBefore);
  return jwt.sign(key);
}

const b64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');

/** An unsecured JWT (RFC 7519 6): alg none and an empty signature. */
export function unsecured(claims: JWTPayload): string {
  return `${b64url({ alg: 'none', typ: 'JWT' })}.${b64url(claims)}.`;
}

export function validClaims(extra: JWTPayload = {}): JWTPayload {
  return { iss: ISSUER, aud: TEST_BASE_URL, sub: 'staff-1', exp: now() + 600, roles: ['staff'], ...extra };
}

/** Writes a file into a fresh temp directory and returns its path. */
export function tempFile(name: string, content: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'catalog-auth-')), name);
  writeFileSync(path, content);
  return path;
}

export const bearer = (token: string) => ({ Authorization: `Bearer ${token}` });
