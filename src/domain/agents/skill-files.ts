// Where the stored files of skills are published, and the shapes that describe them: the Agent Skills discovery
// index (0.2.0, schemas.agentskills.io) at /.well-known/agent-skills/index.json and the MCP skills extension
// (SEP-2640, skill:// URIs). One place, so the index, the raw files, ARD entries and MCP agree on every URL.
export const AGENT_SKILLS_SCHEMA = 'https://schemas.agentskills.io/discovery/0.2.0/schema.json';
export const AGENT_SKILLS_BASE = '/.well-known/agent-skills';
export const AGENT_SKILLS_INDEX = `${AGENT_SKILLS_BASE}/index.json`;
/** Agent Skills names: 1-64 lowercase letters and digits in hyphen-joined words (our slugs already are). */
export const SKILL_NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const SKILL_DESCRIPTION_MAX = 1024;

/**
 * URL path of one stored file of a skill (SKILL.md by default). The file path is one URL-encoded segment
 * (scripts%2Frun.py): the route table documents each route as one OpenAPI path, which has no wildcard.
 */
export function skillFilePath(slug: string, path = 'SKILL.md'): string {
  return `${AGENT_SKILLS_BASE}/${slug}/${encodeURIComponent(path)}`;
}

/** The MCP resource URI of a stored file of a skill (SEP-2640): skill://{name}/{path}. */
export function skillUri(slug: string, path = 'SKILL.md'): string {
  return `skill://${slug}/${path}`;
}

export function sha256Digest(hex: string): string {
  return `sha256:${hex}`;
}
