// The discovery stage: every generator returns files (pure data), the SiteWriter puts them into the build.
// Generators are listed here; each module owns its documents.
import { join } from 'node:path';
import type { Stage, StageContext } from '../pipeline.ts';
import { SiteWriter, type GeneratedFile } from '../site-writer.ts';
import { agentSurfaceFiles } from './agent-surfaces.ts';
import { openApiFiles } from './openapi.ts';

export type DiscoveryGenerator = (ctx: StageContext) => GeneratedFile[] | Promise<GeneratedFile[]>;

export const DISCOVERY_GENERATORS: DiscoveryGenerator[] = [(ctx) => openApiFiles(ctx.baseUrl), agentSurfaceFiles];

export const DISCOVERY_STAGE: Stage = {
  name: 'discovery',
  async run(ctx) {
    const writer = new SiteWriter(join(ctx.buildDir, 'site'));
    let done = 0;
    for (const generate of DISCOVERY_GENERATORS) {
      for (const file of await generate(ctx)) writer.write(file);
      ctx.progress(++done, DISCOVERY_GENERATORS.length);
    }
    writer.finish();
  },
};
