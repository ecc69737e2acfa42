// The one guard of every staff route (SERVICE.md 1.4 and 5.4): a staff Bearer JWT or the 401 challenge.
// Staff route modules wrap their handlers with staffOnly(services, handler) and share one verifier per app.
import type { StaffProfile } from '../../src/domain/schemas.ts';
import type { Handler, RequestContext } from '../http/router.ts';
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

export type StaffHandler = (ctx: RequestContext, staff: StaffProfile) => void | Promise<void>;

export function createStaffGuard(services: Services, verifier?: StaffTokenVerifier): StaffGuard {
  const { config, logger } = services;
  const tokens = verifier ?? createStaffTokenVerifier(config.staffAuth, config.baseUrl);
  return {
    async requireStaff(ctx) {
      const header = ctx.req.headers.authorization;
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

// One guard (and so one verifier, with its JWKS cache) per app, whichever staff module asks first.
const guards = new WeakMap<Services, StaffGuard>();

export function staffGuard(services: Services): StaffGuard {
  let guard = guards.get(services);
  if (!guard) {
    guard = createStaffGuard(services);
    guards.set(services, guard);
  }
  return guard;
}

/** Wraps a staff route's handler; call it while building the route table so key errors fail the start. */
export function staffOnly(services: Services, handler: StaffHandler): Handler {
  const guard = staffGuard(services);
  return async (ctx) => {
    const staff = await guard.requireStaff(ctx);
    // Staff answers are personal and current: no shared or stored copies.
    ctx.res.setHeader('Cache-Control', 'no-store');
    await handler(ctx, staff);
  };
}
