// The skills whose files the catalog stores, with a SHA-256 of every file: what the Agent Skills discovery index,
// the raw file routes and the MCP skills extension all serve. Built once per snapshot on first use (one pass over
// the skill listings), so a digest always describes the bytes the same snapshot serves.
import { createHash } from 'node:crypto';
import type * as Yaml from 'yaml';
import { lazyModule } from '../../src/lazy-module.ts';
import { AGENT_SKILLS_SCHEMA, SKILL_DESCRIPTION_MAX, SKILL_NAME_PATTERN, sha256Digest, skillFilePath } from '../../src/domain/agents/skill-files.ts';
import type { Listing, ListingFile } from '../../src/domain/schemas.ts';
import { snapshotResource, type Snapshot } from '../catalog/snapshot.ts';

/** A skill's front matter is read when the skills are first listed, not at start. */
const yaml = lazyModule<typeof Yaml>('yaml', import.meta.url);

export interface StoredSkillFile {
  path: string;
  mediaType: string;
  size: number;
  /** Hex SHA-256 of the file's UTF-8 bytes, as served. */
  sha256: string;
}

export interface StoredSkill {
  doc: number;
  /** The listing slug, which is also the skill's name in every URL. */
  name: string;
  displayName: string;
  description: string;
  listingId: string;
  files: StoredSkillFile[];
  /**
   * The skill's path in skill:// URIs (SEP-2640): its last segment must be the SKILL.md front-matter name, so a
   * skill whose name differs from its listing slug lives under the slug as prefix (skill://{slug}/{name}/SKILL.md).
   */
  path: string;
  /** The SKILL.md front matter (name and description filled from the listing when it lacks them). */
  frontmatter: Record<string, unknown>;
}

export interface SkillCatalog {
  /** Skills with stored files, in the catalog's default order (installs). */
  skills: StoredSkill[];
  byName: Map<string, StoredSkill>;
  byPath: Map<string, StoredSkill>;
}

export const sha256Hex = (text: string | Buffer): string => createHash('sha256').update(text).digest('hex');

/** A description fit for a skills index: one line, at most SKILL_DESCRIPTION_MAX characters, never empty. */
function indexDescription(listing: Pick<Listing, 'description' | 'name' | 'repo'>): string {
  const text = listing.description.replace(/\s+/g, ' ').trim() || `${listing.name} skill from ${listing.repo}`;
  return text.length <= SKILL_DESCRIPTION_MAX ? text : `${text.slice(0, SKILL_DESCRIPTION_MAX - 1)}…`;
}

/** The YAML front matter of a SKILL.md as an object ({} when it has none or it does not parse). */
export function frontMatter(markdown: string): Record<string, unknown> {
  const match = /^---\r?\n([\s\S]*?)\r?\n---(?:\r?\n|$)/.exec(markdown);
  if (!match) return {};
  try {
    const parsed: unknown = yaml().parse(match[1]!);
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? { ...(parsed as Record<string, unknown>) } : {};
  } catch {
    return {};
  }
}

/** The skills of a snapshot that have stored files, made on first use. */
const SKILL_CATALOG = snapshotResource('skill-catalog', (snapshot): SkillCatalog => {
  const docs = snapshot.engine.search({ types: ['skill'], offset: 0, limit: snapshot.store.count }).docs;
  const skills: StoredSkill[] = [];
  snapshot.store.readJson(docs).forEach((text, i) => {
    const listing = JSON.parse(text) as Listing;
    if (listing.files.length === 0 || !SKILL_NAME_PATTERN.test(listing.slug) || listing.slug.length > 64) return;
    const doc = docs[i]!;
    const files = JSON.parse(snapshot.store.readFilesJson(doc)) as ListingFile[];
    if (files[0]?.path !== 'SKILL.md') return;
    const frontmatter = frontMatter(files[0].content);
    const declared = typeof frontmatter.name === 'string' && SKILL_NAME_PATTERN.test(frontmatter.name) ? frontmatter.name : listing.slug;
    frontmatter.name = declared;
    if (typeof frontmatter.description !== 'string' || !frontmatter.description.trim()) frontmatter.description = indexDescription(listing);
    skills.push({
      doc,
      path: declared === listing.slug ? listing.slug : `${listing.slug}/${declared}`,
      frontmatter,
      name: listing.slug,
      displayName: listing.name,
      description: indexDescription(listing),
      listingId: listing.id,
      files: files.map((file) => ({ path: file.path, mediaType: file.mediaType, size: Buffer.byteLength(file.content), sha256: sha256Hex(file.content) })),
    });
  });
  return { skills, byName: new Map(skills.map((skill) => [skill.name, skill])), byPath: new Map(skills.map((skill) => [skill.path, skill])) };
});

export function skillCatalog(snapshot: Snapshot): SkillCatalog {
  return snapshot.get(SKILL_CATALOG);
}

/** The content of one stored file of a skill, or undefined. */
export function readSkillFile(snapshot: Snapshot, skill: StoredSkill, path: string): ListingFile | undefined {
  const files = JSON.parse(snapshot.store.readFilesJson(skill.doc)) as ListingFile[];
  return files.find((file) => file.path === path);
}

/** The Agent Skills discovery index (0.2.0) of the snapshot's stored skills. */
export function agentSkillsIndex(snapshot: Snapshot, baseUrl: string): Record<string, unknown> {
  return {
    $schema: AGENT_SKILLS_SCHEMA,
    skills: skillCatalog(snapshot).skills.map((skill) => ({
      name: skill.name,
      type: 'skill-md',
      description: skill.description,
      url: baseUrl + skillFilePath(skill.name),
      digest: sha256Digest(skill.files[0]!.sha256),
    })),
  };
}
