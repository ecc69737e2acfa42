// Guarantees every staff key source (JWKS file, JWKS URL, HS shared secret) verifies its own tokens and only
// them, that the role claim is configurable, and that contradictory or unreadable key settings fail the start.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { exportJWK, generateKeyPair, type JWK } from 'jose';
import { pino } from 'pino';
import { createStaffTokenVerifier } from '../../server/auth/staff-token.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { StaffProfileSchema } from '../../src/domain/schemas.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { bearer, INVALID_TOKEN_CHALLENGE, ISSUER, mint, tempFile } from './tokens.ts';

const es = await generateKeyPair('ES256');
const ed = await generateKeyPair('EdDSA');
const rsa = await generateKeyPair('RS256');
const stranger = await generateKeyPair('ES256');
const jwk = async (key: CryptoKey, kid: string, alg: string): Promise<JWK> => ({ ...(await exportJWK(key)), kid, alg, use: 'sig' });
const jwksJson = JSON.stringify({ keys: [await jwk(es.publicKey, 'es-1', 'ES256'), await jwk(ed.publicKey, 'ed-1', 'EdDSA')] });
const SECRET = 'a-shared-staff-secret-of-forty-bytes-0001';

const me = (server: TestServer, token: string) => server.fetch('/api/v1/auth/me', { headers: bearer(token) });

describe('a local JWKS file', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startInProcess({}, {}, { STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_JWKS: tempFile('jwks.json', jwksJson) });
  });
  afterAll(() => server.close());

  it.each([
    ['ES256', es, 'es-1'],
    ['EdDSA', ed, 'ed-1'],
  ] as const)('accepts a %s token whose kid is in the set', async (alg, pair, kid) => {
    const res = await me(server, await mint(pair.privateKey, undefined, { alg, kid }));
    expect(res.status).toBe(200);
    expect(StaffProfileSchema.parse(await json(res)).subject).toBe('staff-1');
  });

  it.each([
    ['a kid that is not in the set', () => mint(es.privateKey, undefined, { alg: 'ES256', kid: 'es-2' })],
    ['a known kid signed by another key', () => mint(stranger.privateKey, undefined, { alg: 'ES256', kid: 'es-1' })],
    ['an RS256 token (no RSA key in the set)', () => mint(rsa.privateKey, undefined, { alg: 'RS256' })],
    ['HS256 signed with a key of the set as secret', () => mint(new TextEncoder().encode(jwksJson), undefined, { alg: 'HS256', kid: 'es-1' })],
  ])('refuses %s', async (_name, token) => {
    const res = await me(server, await token());
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN_CHALLENGE);
  });
});

describe('a JWKS URL', () => {
  let jwksServer: Server;
  let jwksUrl: string;
  let server: TestServer;
  let fetches = 0;
  beforeAll(async () => {
    // No internet in tests: the JWKS is served by a local HTTP server, as an identity provider would.
    jwksServer = createServer((req, res) => {
      fetches++;
      if (req.url !== '/jwks.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'Content-Type': 'application/json' }).end(jwksJson);
    });
    await new Promise<void>((resolve) => jwksServer.listen(0, '127.0.0.1', resolve));
    jwksUrl = `http://127.0.0.1:${(jwksServer.address() as AddressInfo).port}/jwks.json`;
    server = await startInProcess({}, {}, { STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_JWKS: jwksUrl });
  });
  afterAll(async () => {
    await server.close();
    jwksServer.closeAllConnections();
    await new Promise((resolve) => jwksServer.close(resolve));
  });

  it('fetches the set once and verifies tokens with it', async () => {
    for (let i = 0; i < 3; i++) expect((await me(server, await mint(es.privateKey, undefined, { alg: 'ES256', kid: 'es-1' }))).status).toBe(200);
    expect(fetches).toBe(1);
    expect((await me(server, await mint(stranger.privateKey, undefined, { alg: 'ES256', kid: 'es-1' }))).status).toBe(401);
  });

  it('an unreachable JWKS refuses the token with the challenge, not a 500, and warns the operator', async () => {
    const lines: string[] = [];
    const logger = pino({ level: 'debug' }, { write: (line: string) => void lines.push(line) });
    const down = await startInProcess({}, { logger }, { STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_JWKS: 'http://127.0.0.1:9/jwks.json' });
    try {
      const token = await mint(es.privateKey, undefined, { alg: 'ES256', kid: 'es-1' });
      const res = await me(down, token);
      expect(res.status).toBe(401);
      expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN_CHALLENGE);
      const warnings = lines.map((line) => JSON.parse(line) as { level: number; msg: string; reason: string }).filter((entry) => entry.level === 40);
      expect(warnings).toMatchObject([
        { msg: 'staff token could not be checked', reason: expect.stringContaining('JWKS http://127.0.0.1:9/jwks.json unavailable') },
      ]);
      expect(lines.join('')).not.toContain(token);
    } finally {
      await down.close();
    }
  });
});

describe('an HS shared secret', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startInProcess({}, {}, { STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_SECRET: SECRET });
  });
  afterAll(() => server.close());

  it('accepts an HS256 token signed with the secret', async () => {
    expect((await me(server, await mint(new TextEncoder().encode(SECRET), undefined, { alg: 'HS256' }))).status).toBe(200);
  });

  it.each([
    ['another secret', () => mint(new TextEncoder().encode(SECRET.replace('0001', '0002')), undefined, { alg: 'HS256' })],
    ['HS512, not in the default allow-list', () => mint(new TextEncoder().encode(SECRET), undefined, { alg: 'HS512' })],
    ['an RS256 token: only HS algorithms are allowed with a secret', () => mint(rsa.privateKey, undefined, { alg: 'RS256' })],
  ])('refuses a token signed with %s', async (_name, token) => {
    const res = await me(server, await token());
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(INVALID_TOKEN_CHALLENGE);
  });
});

describe('the role claim', () => {
  const secret = new TextEncoder().encode(SECRET);
  const verifier = (env: NodeJS.ProcessEnv) =>
    createStaffTokenVerifier(
      loadConfig({ STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_SECRET: SECRET, PUBLIC_BASE_URL: TEST_BASE_URL, ...env }).staffAuth,
      TEST_BASE_URL,
    );
  const hs = (claims: Record<string, unknown>) => mint(secret, claims, { alg: 'HS256' });

  it.each([
    [
      'a nested claim by dotted path',
      { STAFF_ROLE_CLAIM: 'realm_access.roles', STAFF_ROLE: 'catalog-staff' },
      { realm_access: { roles: ['catalog-staff'] } },
      true,
    ],
    [
      'a nested claim without the role',
      { STAFF_ROLE_CLAIM: 'realm_access.roles', STAFF_ROLE: 'catalog-staff' },
      { realm_access: { roles: ['staff'] }, roles: ['catalog-staff'] },
      false,
    ],
    ['a namespaced claim name with dots, read whole', { STAFF_ROLE_CLAIM: 'https://catalog.test/roles' }, { 'https://catalog.test/roles': ['staff'] }, true],
    ['a space-separated scope string', { STAFF_ROLE_CLAIM: 'scope', STAFF_ROLE: 'catalog:staff' }, { scope: 'openid catalog:staff' }, true],
    ['a scope string lacking the role', { STAFF_ROLE_CLAIM: 'scope', STAFF_ROLE: 'catalog:staff' }, { scope: 'openid catalog:staffer' }, false],
    ['the default claim when another is configured', { STAFF_ROLE_CLAIM: 'groups' }, { roles: ['staff'] }, false],
  ])('%s', async (_name, env, claims, accepted) => {
    const result = await verifier(env).verify(await hs(claims));
    expect(result.ok).toBe(accepted);
  });
});

describe('staff key settings', () => {
  const base = { PUBLIC_BASE_URL: TEST_BASE_URL, STAFF_JWT_ISSUER: ISSUER };
  it.each([
    ['two key sources', { STAFF_JWT_SECRET: SECRET, STAFF_JWT_JWKS: '/tmp/jwks.json' }, 'only one of'],
    ['HS algorithms with a public key', { STAFF_JWT_PUBLIC_KEY: '/tmp/key.pem', STAFF_JWT_ALGORITHMS: 'RS256,HS256' }, 'HS* algorithms need STAFF_JWT_SECRET'],
    ['HS algorithms with a JWKS', { STAFF_JWT_JWKS: '/tmp/jwks.json', STAFF_JWT_ALGORITHMS: 'HS256' }, 'HS* algorithms need STAFF_JWT_SECRET'],
    ['RS algorithms with a secret', { STAFF_JWT_SECRET: SECRET, STAFF_JWT_ALGORITHMS: 'HS256,RS256' }, 'only HS256, HS384 and HS512'],
    ['a short secret', { STAFF_JWT_SECRET: 'too-short' }, 'at least 32 bytes'],
    ['alg none', { STAFF_JWT_PUBLIC_KEY: '/tmp/key.pem', STAFF_JWT_ALGORITHMS: 'none' }, 'STAFF_JWT_ALGORITHMS'],
    ['an unknown algorithm', { STAFF_JWT_PUBLIC_KEY: '/tmp/key.pem', STAFF_JWT_ALGORITHMS: 'RS256,XS1' }, 'STAFF_JWT_ALGORITHMS'],
    ['a key without an issuer', { STAFF_JWT_ISSUER: undefined, STAFF_JWT_PUBLIC_KEY: '/tmp/key.pem' }, 'STAFF_JWT_ISSUER: required'],
    ['a clock skew above five minutes', { STAFF_CLOCK_SKEW_SECONDS: '600' }, 'STAFF_CLOCK_SKEW_SECONDS'],
  ])('refuses %s with one readable message', (_name, env, message) => {
    expect(() => loadConfig({ ...base, ...env })).toThrow(ConfigError);
    expect(() => loadConfig({ ...base, ...env })).toThrow(message);
  });

  it('defaults: RS256, ES256 and EdDSA; roles contains staff; 30 s skew; audience is the base URL', () => {
    const { staffAuth } = loadConfig({ ...base, STAFF_JWT_JWKS: '/tmp/jwks.json' });
    expect(staffAuth).toEqual({
      key: { kind: 'jwks', value: '/tmp/jwks.json' },
      issuer: ISSUER,
      audience: undefined,
      algorithms: ['RS256', 'ES256', 'EdDSA'],
      roleClaim: 'roles',
      role: 'staff',
      clockSkewSeconds: 30,
    });
    expect(loadConfig({ ...base, STAFF_JWT_SECRET: SECRET }).staffAuth.algorithms).toEqual(['HS256']);
    expect(loadConfig({ PUBLIC_BASE_URL: TEST_BASE_URL }).staffAuth.key).toEqual({ kind: 'none' });
  });

  it.each([
    ['a missing PEM file', { STAFF_JWT_PUBLIC_KEY: '/nonexistent/staff.pem' }, 'STAFF_JWT_PUBLIC_KEY: cannot read'],
    ['PEM text that is no key', { STAFF_JWT_PUBLIC_KEY: '-----BEGIN PUBLIC KEY-----\\nnot a key\\n-----END PUBLIC KEY-----' }, 'not a PEM public key'],
    ['a missing JWKS file', { STAFF_JWT_JWKS: '/nonexistent/jwks.json' }, 'STAFF_JWT_JWKS: cannot read'],
    ['a JWKS file that is not JSON', { STAFF_JWT_JWKS: tempFile('jwks.json', 'keys: []') }, 'STAFF_JWT_JWKS: not JSON'],
    ['JSON that is no JWK Set', { STAFF_JWT_JWKS: '{"kty":"EC"}' }, 'no "keys" array'],
  ])('fails the start on %s', (_name, env, message) => {
    const config = loadConfig({ ...base, ...env });
    expect(() => createStaffTokenVerifier(config.staffAuth, config.baseUrl)).toThrow(ConfigError);
    expect(() => createStaffTokenVerifier(config.staffAuth, config.baseUrl)).toThrow(message);
  });

  it('STAFF_JWT_AUDIENCE replaces the base URL as the expected audience', async () => {
    const config = loadConfig({ ...base, STAFF_JWT_SECRET: SECRET, STAFF_JWT_AUDIENCE: 'catalog-staff-api' });
    const verifier = createStaffTokenVerifier(config.staffAuth, config.baseUrl);
    const secret = new TextEncoder().encode(SECRET);
    expect((await verifier.verify(await mint(secret, undefined, { alg: 'HS256', audience: 'catalog-staff-api' }))).ok).toBe(true);
    expect((await verifier.verify(await mint(secret, undefined, { alg: 'HS256' }))).ok).toBe(false);
  });
});
