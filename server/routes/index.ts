// Every route module of the shim, in one list; app.ts registers them all. Add a surface here.
import type { Route } from '../http/router.ts';
import type { Services } from '../services.ts';
import { authRoutes } from '../auth/auth-routes.ts';
import { agentRoutes } from './agent-routes.ts';
import { catalogRoutes } from './catalog-routes.ts';
import { opsRoutes } from './ops-routes.ts';
import { siteRoutes } from './site-routes.ts';
import { staffRoutes } from './staff-routes.ts';
import { registryRoutes } from '../registry/registry-routes.ts';
import { ardRoutes } from '../ard/ard-routes.ts';
import { skillRoutes } from '../skills/skill-routes.ts';
import { ownerRoutes } from '../owners/owner-routes.ts';

export const ROUTE_MODULES: ReadonlyArray<(services: Services) => Route[]> = [catalogRoutes, authRoutes, staffRoutes, agentRoutes, siteRoutes, opsRoutes, registryRoutes, ardRoutes, skillRoutes, ownerRoutes];
