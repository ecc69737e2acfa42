// The one guard of every staff route (SERVICE.md 1.4 and 5.4): a staff Bearer JWT or the 401 challenge.
// The composition root makes one guard (one verifier, one JWKS cache); staff handlers are wrapped with staffOnly.
import type { StaffProfile } from '../../src/domain/schemas.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import type { Handler, Reply, RequestContext } from '../http/handler.ts';
import type { Services } from '../services.ts';
import { unauthorized } from './challenge.ts';
import { createStaffTokenVerifier, type StaffTokenVerifier } from './staff-token.ts';

/**
 * The Bearer token of an Authorization header (RFC 6750 2.1, scheme case-insensitive per RFC 9110 11.1):
 * undefined when there is no Bearer credential at all (no header, or another scheme such as Basic),
 * otherwise the token text, which may be empty or malformed and is then refused by the verifier.
 */
export function bearerToken(header: string | undefined): string | undefined {
  if (header === undefined) return undefined;
  const match = /^\s*Bearer(?:\s+(.*?))?\s*$/is.exec(header);
  return match ? (match[1] ?? '') : undefined;
}

export interface StaffGuard {
  /** The caller's staff profile; throws the 401 challenge for anything else. */
  requireStaff(ctx: RequestContext): Promise<StaffProfile>;
}

export type StaffHandler = (ctx: RequestContext, staff: StaffProfile) => Reply | Promise<Reply>;

export function createStaffGuard(services: Services, verifier?: StaffTokenVerifier): StaffGuard {
  const { config, logger } = services;
  const tokens = verifier ?? createStaffTokenVerifier(config.staffAuth, config.baseUrl);
  return {
    async requireStaff(ctx) {
      const header = ctx.headers.authorization;
      const token = bearerToken(header);
      if (token === undefined) throw unauthorized(config.baseUrl, 'missing');
      const result = await tokens.verify(token);
      if (result.ok) return result.profile;
      // The reason stays in the log; the client sees one refusal for every failure.
      const log = { path: ctx.path, clientIp: ctx.clientIp, reason: result.reason };
      if (result.unexpected) logger.warn(log, 'staff token could not be checked');
      else logger.debug(log, 'staff token refused');
      throw unauthorized(config.baseUrl, 'invalid_token');
    },
  };
}

/** Wraps a staff route's handler: the guard first, then an answer nobody may share or store. */
export function staffOnly(guard: StaffGuard, handler: StaffHandler): Handler {
  return async (ctx) => {
    const staff = await guard.requireStaff(ctx);
    // Staff answers are personal and current: no shared or stored copies, errors included.
    try {
      const reply = await handler(ctx, staff);
      return { ...reply, headers: { ...reply.headers, 'Cache-Control': 'no-store' } };
    } catch (error) {
      if (error instanceof CatalogError) error.headers['Cache-Control'] = 'no-store';
      throw error;
    }
  };
}
