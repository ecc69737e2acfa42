// Agent Skills discovery (0.2.0): GET /.well-known/agent-skills/index.json lists every skill whose files the catalog
// stores (name, type skill-md, description, url of its SKILL.md, sha256 digest), and the files themselves are served
// raw beside it (a nested path as one encoded segment).
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { AGENT_SKILLS_INDEX } from '../../src/domain/agents/skill-files.ts';
import { snapshotResource } from '../catalog/snapshot.ts';
import { json, type HandlersFor } from '../http/handler.ts';
import type { Services } from '../services.ts';
import { agentSkillsIndex, readSkillFile, skillCatalog } from '../skills/skill-catalog.ts';

export function skillHandlers(services: Services): HandlersFor<'getAgentSkillsIndex' | 'getAgentSkillFile'> {
  const index = snapshotResource('agent-skills-index', (snapshot) => Buffer.from(JSON.stringify(agentSkillsIndex(snapshot, services.config.baseUrl))));
  return {
    getAgentSkillsIndex: () => json(200, services.catalog.current.get(index), { 'Cache-Control': 'public, max-age=300' }),
    getAgentSkillFile: (ctx) => {
      const snapshot = services.catalog.current;
      const name = ctx.params.name ?? '';
      const path = ctx.params.path ?? '';
      const skill = skillCatalog(snapshot).byName.get(name);
      const file = skill ? readSkillFile(snapshot, skill, path) : undefined;
      if (!skill || !file)
        throw new CatalogError('not_found', `No stored file '${path}' of a skill '${name}'.`, {
          resolution: `The skills with stored files and their SKILL.md URLs are listed at ${AGENT_SKILLS_INDEX}.`,
        });
      const digest = skill.files.find((f) => f.path === path)!.sha256;
      const type = file.mediaType.startsWith('text/') ? `${file.mediaType}; charset=utf-8` : file.mediaType;
      return json(
        200,
        file.content,
        { 'Cache-Control': 'public, max-age=300', ETag: `"${digest}"`, 'Content-Digest': `sha-256=:${Buffer.from(digest, 'hex').toString('base64')}:` },
        type,
      );
    },
  };
}
