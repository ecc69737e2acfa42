// Every handler of the shim in one table keyed by operation id (src/domain/contract/operations.ts). A route operation
// without a handler fails the type check here; a handler for an id that is not a route operation fails it in its
// module (HandlersFor only takes route operation ids).
import type { HandlerTable } from '../http/handler.ts';
import type { Services } from '../services.ts';
import type { StaffGuard } from '../auth/staff-guard.ts';
import { authHandlers } from './auth-routes.ts';
import { agentHandlers, type AgentStores } from './agent-routes.ts';
import { catalogHandlers } from './catalog-routes.ts';
import { opsHandlers } from './ops-routes.ts';
import { siteHandlers } from './site-routes.ts';
import { staffHandlers } from './staff-routes.ts';
import { registryHandlers } from './registry-routes.ts';
import { ardHandlers } from './ard-routes.ts';
import { skillHandlers } from './skill-routes.ts';
import { ownerHandlers } from './owner-routes.ts';

/** What the handlers share besides the services: made once by the composition root. */
export interface HandlerStores extends AgentStores {
  staffGuard: StaffGuard;
}

export function createHandlers(services: Services, stores: HandlerStores): HandlerTable {
  return {
    ...catalogHandlers(services),
    ...authHandlers(services, stores.staffGuard),
    ...staffHandlers(services, stores.staffGuard),
    ...agentHandlers(services, stores),
    ...siteHandlers(services),
    ...opsHandlers(services, stores.staffGuard),
    ...registryHandlers(services),
    ...ardHandlers(services),
    ...skillHandlers(services),
    ...ownerHandlers(services),
  };
}
