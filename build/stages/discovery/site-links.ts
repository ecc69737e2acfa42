// Where the discovery files point: API and discovery paths come from the operations table (so a link follows an
// operation if it moves and cannot name one that does not exist), agent paths from AGENT_PATHS, pages from SITE_PATHS.
import { OPERATIONS } from '../../../src/domain/contract/operations.ts';
import type { RuntimeManifest } from '../../../src/artifacts/runtime-manifest.ts';
import type { StageContext } from '../stage.ts';

/** Canonical path of an operation of SERVICE.md, by its OpenAPI operationId; `{id}`-style parameters filled in. */
export function operationPath(id: string, params: Record<string, string> = {}): string {
  const operation = OPERATIONS.find((op) => op.id === id);
  if (!operation) throw new Error(`no operation ${id} in src/domain/contract/operations.ts`);
  return operation.paths[0]!.replace(/\{(\w+)\}/g, (_, name: string) => {
    const value = params[name];
    if (value === undefined) throw new Error(`operation ${id} needs the path parameter ${name}`);
    return encodeURIComponent(value);
  });
}

/** Files of this stage that have no operation of their own. */
export const EXTRA_PATHS = {
  sitemapShard: (name: string, n: number) => `/sitemaps/${name}-${n}.xml`,
  catalogSkill: '/skills/catalog/SKILL.md',
} as const;

export const MEDIA_TYPES = {
  markdown: 'text/markdown; charset=utf-8',
  text: 'text/plain; charset=utf-8',
  json: 'application/json; charset=utf-8',
  jsonLd: 'application/ld+json; charset=utf-8',
  xml: 'application/xml; charset=utf-8',
  openApiJson: 'application/vnd.oai.openapi+json;version=3.1',
  yaml: 'application/yaml',
  html: 'text/html',
} as const;

export function requireRuntime(ctx: Pick<StageContext, 'runtime'>): RuntimeManifest {
  if (!ctx.runtime) throw new Error('the discovery files need the index stage to run first');
  return ctx.runtime;
}

/** Host part of the public origin: the publisher segment of urn:air identifiers. */
export function publicHost(baseUrl: string): string {
  return new URL(baseUrl).hostname;
}
