// Guarantees SERVICE.md 5.4 for staff routes: only a valid staff Bearer JWT (right key, allowed alg, in its
// validity window, right issuer and audience, staff role) passes; every other request is the exact 401 challenge.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { sharedBuildDir } from '../support/shared-build.ts';
import { exportPKCS8, exportSPKI, generateKeyPair, importPKCS8, SignJWT } from 'jose';
import { createStaffTokenVerifier } from '../../server/auth/staff-token.ts';
import { ErrorSchema, StaffBuildStatusSchema, StaffProfileSchema } from '../../src/domain/schemas.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';
import { bearer, CHALLENGE, INVALID_TOKEN_CHALLENGE, ISSUER, mint, now, tempFile, unsecured, validClaims } from './tokens.ts';

const staffKey = await generateKeyPair('RS256', { extractable: true });
const otherKey = await generateKeyPair('RS256');
const publicPem = await exportSPKI(staffKey.publicKey);

let server: TestServer;
beforeAll(async () => {
  // The key as a path to a PEM file, the way an operator mounts it.
  server = await startInProcess({}, {}, { STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_PUBLIC_KEY: tempFile('staff.pem', publicPem) });
});
afterAll(() => server.close());

const expectChallenge = async (res: Response, challenge: string, sent?: string) => {
  expect(res.status).toBe(401);
  expect(res.headers.get('www-authenticate')).toBe(challenge);
  expect(res.headers.get('cache-control')).toBe('no-store');
  const text = await res.text();
  const body = ErrorSchema.parse(JSON.parse(text));
  expect(body.code).toBe('unauthorized');
  if (sent) expect(text).not.toContain(sent);
  return body;
};

describe('GET /api/v1/auth/me', () => {
  it('without Authorization is 401 with the challenge and no error parameter', async () => {
    await expectChallenge(await server.fetch('/api/v1/auth/me'), CHALLENGE);
  });

  it.each([
    ['Basic credentials', 'Basic eHl6OnNlY3JldA=='],
    ['a Digest credential', 'Digest username="staff"'],
  ])('with %s (no Bearer token) is the challenge without an error parameter', async (_name, header) => {
    await expectChallenge(await server.fetch('/api/v1/auth/me', { headers: { Authorization: header } }), CHALLENGE);
  });

  it.each([
    ['Bearer with no token', 'Bearer'],
    ['Bearer with a blank token', 'Bearer    '],
    ['two segments', 'Bearer a.b'],
    ['four segments', 'Bearer a.b.c.d'],
    ['not base64url', 'Bearer ###.$$$.%%%'],
    ['garbage segments', 'Bearer aaaa.bbbb.cccc'],
    ['a token with spaces', 'Bearer not a token'],
    ['an oversized token', `Bearer ${'a'.repeat(5000)}.${'b'.repeat(5000)}.c`],
  ])('a malformed Bearer header (%s) is the invalid_token challenge', async (_name, header) => {
    await expectChallenge(await server.fetch('/api/v1/auth/me', { headers: { Authorization: header } }), INVALID_TOKEN_CHALLENGE);
  });

  const CLAIM = 'ERR_JWT_CLAIM_VALIDATION_FAILED';
  const SIGNATURE = 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED';
  const ROLE = 'role claim roles lacks staff';
  const refused: Array<[string, () => Promise<string>, string]> = [
    ['alg none', async () => unsecured(validClaims()), 'ERR_JOSE_ALG_NOT_ALLOWED'],
    ['alg none with a signature appended', async () => unsecured(validClaims()) + 'c2lnbmF0dXJl', 'ERR_JOSE_ALG_NOT_ALLOWED'],
    ['expired beyond the clock skew', () => mint(staffKey.privateKey, undefined, { expiresIn: -120 }), 'ERR_JWT_EXPIRED'],
    ['not yet valid beyond the clock skew', () => mint(staffKey.privateKey, undefined, { notBefore: 120 }), CLAIM],
    ['a wrong issuer', () => mint(staffKey.privateKey, undefined, { issuer: 'https://evil.example' }), CLAIM],
    ['no issuer', () => mint(staffKey.privateKey, undefined, { issuer: undefined }), CLAIM],
    ['a wrong audience', () => mint(staffKey.privateKey, undefined, { audience: 'https://other.example' }), CLAIM],
    ['no audience', () => mint(staffKey.privateKey, undefined, { audience: undefined }), CLAIM],
    ['a wrong key', () => mint(otherKey.privateKey), SIGNATURE],
    // The classic confusion: the RSA public key's PEM, which is public, used as an HMAC secret.
    [
      'HS256 signed with the RSA public key PEM as secret',
      () => mint(new TextEncoder().encode(publicPem), undefined, { alg: 'HS256' }),
      'ERR_JOSE_ALG_NOT_ALLOWED',
    ],
    [
      'RS384 (same key), outside the allow-list',
      async () => mint(await importPKCS8(await exportPKCS8(staffKey.privateKey), 'RS384'), undefined, { alg: 'RS384' }),
      'ERR_JOSE_ALG_NOT_ALLOWED',
    ],
    ['no role claim', () => mint(staffKey.privateKey, {}), ROLE],
    ['roles without staff', () => mint(staffKey.privateKey, { roles: ['editor', 'viewer'] }), ROLE],
    ['a role that only contains the word staff', () => mint(staffKey.privateKey, { roles: ['staffer', 'not-staff'] }), ROLE],
    ['roles as an object', () => mint(staffKey.privateKey, { roles: { staff: true } }), ROLE],
    ['no subject', () => mint(staffKey.privateKey, undefined, { subject: undefined }), CLAIM],
    ['no expiry', () => mint(staffKey.privateKey, undefined, { expiresIn: undefined }), CLAIM],
    ['a signature cut short', async () => (await mint(staffKey.privateKey)).slice(0, -8), SIGNATURE],
    [
      'a payload swapped after signing',
      async () => {
        const [head, , signature] = (await mint(staffKey.privateKey, { roles: ['viewer'] })).split('.');
        const forged = Buffer.from(JSON.stringify(validClaims())).toString('base64url');
        return `${head}.${forged}.${signature}`;
      },
      SIGNATURE,
    ],
  ];

  it.each(refused)('a token with %s is the invalid_token challenge', async (_name, token) => {
    const jwt = await token();
    await expectChallenge(await server.fetch('/api/v1/auth/me', { headers: bearer(jwt) }), INVALID_TOKEN_CHALLENGE, jwt);
  });

  // The same table in process, to show each token is refused for the reason its name gives (the client never sees it).
  it.each(refused)('a token with %s is refused by the check it targets', async (_name, token, reason) => {
    const verifier = createStaffTokenVerifier(server.config.staffAuth, server.config.baseUrl);
    expect(await verifier.verify(await token())).toEqual({ ok: false, reason });
  });

  it('a token whose header names another allowed alg than the key fits (ES256 against the RSA key) is refused', async () => {
    const ec = await generateKeyPair('ES256');
    const token = await mint(ec.privateKey, undefined, { alg: 'ES256' });
    await expectChallenge(await server.fetch('/api/v1/auth/me', { headers: bearer(token) }), INVALID_TOKEN_CHALLENGE, token);
  });

  it('every refusal has the same body, so it tells an attacker nothing', async () => {
    const bodies = new Set<string>();
    for (const [, token] of refused.slice(0, 8)) {
      bodies.add(await (await server.fetch('/api/v1/auth/me', { headers: bearer(await token()) })).text());
    }
    expect(bodies.size).toBe(1);
  });

  it('a valid staff token returns the staff profile', async () => {
    const token = await mint(staffKey.privateKey, { roles: ['viewer', 'staff'], name: 'Ada Staff', email: 'ada@catalog.test' });
    const res = await server.fetch('/api/v1/auth/me', { headers: bearer(token) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(res.headers.get('www-authenticate')).toBeNull();
    const profile = StaffProfileSchema.parse(await json(res));
    expect(profile).toMatchObject({ subject: 'staff-1', name: 'Ada Staff', email: 'ada@catalog.test', roles: ['viewer', 'staff'], issuer: ISSUER });
    const { exp, iat } = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString()) as { exp: number; iat: number };
    expect(profile.expiresAt).toBe(new Date(exp * 1000).toISOString());
    expect(profile.issuedAt).toBe(new Date(iat * 1000).toISOString());
  });

  it('a profile without name or email has them null', async () => {
    const res = await server.fetch('/api/v1/auth/me', { headers: bearer(await mint(staffKey.privateKey)) });
    expect(StaffProfileSchema.parse(await json(res))).toMatchObject({ name: null, email: null, roles: ['staff'] });
  });

  it('tolerates a small clock skew on exp and nbf', async () => {
    for (const options of [{ expiresIn: -10 }, { notBefore: 10 }]) {
      const res = await server.fetch('/api/v1/auth/me', { headers: bearer(await mint(staffKey.privateKey, undefined, options)) });
      expect(res.status).toBe(200);
    }
  });

  it('accepts the scheme in any case and an audience list that includes the service', async () => {
    const token = await new SignJWT({ roles: ['staff'] })
      .setProtectedHeader({ alg: 'RS256' })
      .setIssuer(ISSUER)
      .setAudience(['https://other.example', TEST_BASE_URL])
      .setSubject('staff-2')
      .setExpirationTime(now() + 60)
      .sign(staffKey.privateKey);
    const res = await server.fetch('/api/v1/auth/me', { headers: { Authorization: `bearer ${token}` } });
    expect(res.status).toBe(200);
    expect(StaffProfileSchema.parse(await json(res)).subject).toBe('staff-2');
  });

  it.each(['/v1/auth/me', '/api/upstream/auth/me'])('is also served at %s', async (path) => {
    await expectChallenge(await server.fetch(path), CHALLENGE);
    const res = await server.fetch(path, { headers: bearer(await mint(staffKey.privateKey)) });
    expect(res.status).toBe(200);
  });

  it('the private key PEM works as the configured key too (its public half is used)', async () => {
    const other = await startInProcess({}, {}, { STAFF_JWT_ISSUER: ISSUER, STAFF_JWT_PUBLIC_KEY: await exportPKCS8(staffKey.privateKey) });
    try {
      const res = await other.fetch('/api/v1/auth/me', { headers: bearer(await mint(staffKey.privateKey)) });
      expect(res.status).toBe(200);
    } finally {
      await other.close();
    }
  });
});

describe('GET /api/v1/staff/build', () => {
  it('without a token is the 401 challenge', async () => {
    await expectChallenge(await server.fetch('/api/v1/staff/build'), CHALLENGE);
  });

  it('with a refused token is the invalid_token challenge', async () => {
    const token = await mint(staffKey.privateKey, { roles: ['viewer'] });
    await expectChallenge(await server.fetch('/api/v1/staff/build', { headers: bearer(token) }), INVALID_TOKEN_CHALLENGE, token);
  });

  it('with a staff token returns the status of the build being served', async () => {
    const res = await server.fetch('/api/v1/staff/build', { headers: bearer(await mint(staffKey.privateKey)) });
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('no-store');
    const status = StaffBuildStatusSchema.parse(await json(res));

    const buildDir = await sharedBuildDir();
    const record = JSON.parse(readFileSync(join(buildDir, 'build.json'), 'utf8')) as {
      builtAt: string;
      timings: Record<string, number>;
      ingest: { listings: number; rejected: number };
    };
    const manifest = JSON.parse(readFileSync(join(buildDir, 'runtime', 'manifest.json'), 'utf8')) as {
      snapshotHash: string;
      lastUpdated: string;
      count: number;
    };
    expect(status).toMatchObject({
      builtAt: record.builtAt,
      baseUrl: TEST_BASE_URL,
      timings: record.timings,
      snapshotHash: manifest.snapshotHash,
      lastUpdated: manifest.lastUpdated,
      count: manifest.count,
      rejects: record.ingest.rejected,
    });
    expect(status.build).toBe(buildDir.split('/').pop());
    expect(status.ingest?.listings).toBe(manifest.count);
    expect(Object.keys(status.timings)).toEqual(expect.arrayContaining(['ingest', 'index']));
    expect(status.snapshotHash).toMatch(/^[0-9a-f]{16,}$/);

    const stats = await json<{ total: number }>(await server.fetch('/api/v1/catalog/stats'));
    expect(status.count).toBe(stats.total);
  });

  it('is served at the /v1 and /api/upstream aliases too', async () => {
    for (const path of ['/v1/staff/build', '/api/upstream/staff/build']) {
      expect((await server.fetch(path)).status).toBe(401);
      expect((await server.fetch(path, { headers: bearer(await mint(staffKey.privateKey)) })).status).toBe(200);
    }
  });
});
