// One zod schema per resource: ingest validation, the TypeScript types and the OpenAPI document
// (build/stages/discovery) all come from these. Shapes follow docs/spec/CONTRACT.md.
import { z } from 'zod';
import { LISTING_TYPES } from './listing/listing-types.ts';
import { CATEGORY_SLUG_PATTERN } from './listing/categories.ts';
import { LIMITS } from './contract/limits.ts';

/** The slug of a path-style listing id ({type}:{owner}/{repo}#{slug}, see ListingRecordSchema); a plain slug as is. */
export function slugOfId(id: string): string {
  return id.slice(id.lastIndexOf('#') + 1);
}

export const SLUG_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
export const REPO_PATTERN = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+$/;

export const ListingTypeSchema = z.enum(LISTING_TYPES).meta({ id: 'ListingType' });
const Provenance = z.enum(['real', 'synthetic']);
const IsoDate = z.iso.date();
const IsoDateTime = z.iso.datetime({ offset: true });

export const MetricsProvenanceSchema = z
  .object({
    installs: Provenance.describe('whether the installs figure is measured (real) or generated (synthetic)'),
    stars: Provenance.describe("whether the stars figure is the repository's real star count"),
    history: z.enum(['interpolated', 'synthetic', 'real']).describe('how the daily install history was obtained'),
    installsAsOf: IsoDate.optional(),
    starsSource: z.string().optional(),
    starsAsOf: IsoDate.optional(),
  })
  .meta({ id: 'MetricsProvenance', description: 'Which figures of a listing are measured and which are synthetic.' });

export const ListingSourceSchema = z
  .object({
    repo: z.string().optional(),
    path: z.string().optional(),
    commit: z.string().optional(),
    via: z.string().optional(),
    note: z.string().optional(),
    seed: z.number().int().optional(),
  })
  .meta({ id: 'ListingSource', description: 'Where the listing was read from.' });

const KeyValueInput = z
  .object({
    name: z.string(),
    description: z.string().optional(),
    isRequired: z.boolean().optional(),
    isSecret: z.boolean().optional(),
    default: z.string().optional(),
    format: z.string().optional(),
  })
  .meta({ id: 'McpInput', description: "An environment variable, header or argument an MCP server needs (the registry's KeyValueInput)." });

/** A package an MCP server is distributed as, in the official registry's `server.json` shape (camelCase). */
export const McpPackageSchema = z
  .object({
    registryType: z.string().describe('npm, pypi, oci, nuget, mcpb, ...'),
    registryBaseUrl: z.string().optional(),
    identifier: z.string().min(1),
    version: z.string().optional(),
    runtimeHint: z.string().optional(),
    transport: z.object({ type: z.string(), url: z.string().optional() }),
    environmentVariables: z.array(KeyValueInput).optional(),
    packageArguments: z.array(z.record(z.string(), z.unknown())).optional(),
    runtimeArguments: z.array(z.record(z.string(), z.unknown())).optional(),
  })
  .meta({ id: 'McpPackage' });
export type McpPackage = z.infer<typeof McpPackageSchema>;

/** A remote endpoint of an MCP server (streamable-http or sse), in the registry's shape. */
export const McpRemoteSchema = z.object({ type: z.string(), url: z.string().min(1), headers: z.array(KeyValueInput).optional() }).meta({ id: 'McpRemote' });
export type McpRemote = z.infer<typeof McpRemoteSchema>;

/** A record of a snapshot export (JSON Lines, the format of data/listings.jsonl). */
export const ListingRecordSchema = z
  .object({
    id: z.string().min(LIMITS.id.min).max(LIMITS.id.max),
    slug: z.string().max(LIMITS.id.max).regex(SLUG_PATTERN, 'must be lowercase [a-z0-9] words joined by single hyphens'),
    type: ListingTypeSchema,
    name: z.string().min(1),
    description: z.string(),
    repo: z.string().regex(REPO_PATTERN, 'must be a GitHub owner/repo'),
    author: z.string().min(1),
    category: z.string().regex(CATEGORY_SLUG_PATTERN, 'must be a category slug'),
    categories: z.array(z.string().regex(CATEGORY_SLUG_PATTERN)).optional(),
    tags: z.array(z.string()),
    installs: z.number().int().nonnegative(),
    stars: z.number().int().nonnegative(),
    metricsSource: Provenance,
    metrics: MetricsProvenanceSchema,
    installsHistory: z.array(z.number().int().nonnegative()).min(2).max(366),
    updatedAt: IsoDateTime,
    /** catalog collect, git sources: the first commit that touched the listing's file at its path (copy origins). */
    firstCommitAt: IsoDateTime.optional(),
    source: ListingSourceSchema,
    installCommand: z.string().optional(),
    homepage: z.string().optional(),
    alsoListedIn: z.array(z.string()).optional(),
    marketplace: z.string().optional(),
    version: z.string().optional(),
    pluginCount: z.number().int().nonnegative().optional(),
    files: z.array(z.string()).optional(),
    /** MCP servers: packages and remotes as the official registry states them (catalog collect). */
    packages: z.array(McpPackageSchema).optional(),
    remotes: z.array(McpRemoteSchema).optional(),
    /** MCP servers the registry marks deprecated (still listed, with its warning). */
    status: z.enum(['active', 'deprecated']).optional(),
    /** Plugins whose marketplace names a remote source (github, url, git-subdir, npm): recorded as given. */
    pluginSource: z.record(z.string(), z.unknown()).optional(),
    /** MCP servers: the official registry's server name (io.github.owner/name), part of the listing's identity. */
    registryName: z.string().optional(),
    /** The repository is archived (GitHub), or moved: `movedTo` is its current owner/name. */
    archived: z.boolean().optional(),
    movedTo: z.string().regex(REPO_PATTERN).optional(),
    /** catalog collect: set only when the listing's sources failed in the last collection: the day one last confirmed it. */
    confirmedAt: IsoDate.optional(),
  })
  .superRefine((record, ctx) => {
    const expected = `${record.type}:${record.repo}#${record.slug}`;
    if (record.id !== expected) ctx.addIssue({ code: 'custom', path: ['id'], message: `must be ${expected}` });
    const history = record.installsHistory;
    if (history[history.length - 1] !== record.installs) ctx.addIssue({ code: 'custom', path: ['installsHistory'], message: 'last value must equal installs' });
    for (let i = 1; i < history.length; i++) {
      if (history[i]! < history[i - 1]!) {
        ctx.addIssue({ code: 'custom', path: ['installsHistory', i], message: 'cumulative history must not decrease' });
        break;
      }
    }
    if (record.files && record.files.length > 0 && record.files[0] !== 'SKILL.md')
      ctx.addIssue({ code: 'custom', path: ['files', 0], message: 'SKILL.md must come first' });
  });
export type ListingRecord = z.infer<typeof ListingRecordSchema>;

export const AUDIT_LEVELS = ['none', 'info', 'warn', 'high'] as const;
export type AuditLevel = (typeof AUDIT_LEVELS)[number];
export const AUDIT_SEVERITIES = ['info', 'warn', 'high'] as const;
export type AuditSeverity = (typeof AUDIT_SEVERITIES)[number];

export const AuditFindingSchema = z
  .object({
    rule: z.string().describe('rule id (see /docs/audit)'),
    severity: z.enum(AUDIT_SEVERITIES),
    file: z.string().describe('path of the stored file'),
    line: z.number().int().positive().describe('1-based line of the finding'),
    excerpt: z.string().describe('the line, trimmed to 160 characters, invisible and control characters written as \\u{...}'),
    message: z.string().describe('what the rule saw, in words'),
  })
  .meta({ id: 'AuditFinding' });
export type AuditFinding = z.infer<typeof AuditFindingSchema>;

export const SkillAuditSchema = z
  .object({
    level: z.enum(AUDIT_LEVELS).describe('the highest severity found; none when no rule matched'),
    files: z.number().int().nonnegative().describe('stored files read'),
    bytes: z.number().int().nonnegative().describe('bytes read'),
    findings: z.array(AuditFindingSchema).describe('at most 50, most severe first'),
    truncated: z.boolean().describe('true when findings were left out past the first 50'),
  })
  .meta({ id: 'SkillAudit', description: "Rule-based risk signals from a skill's stored files: a signal, not a verdict." });
export type SkillAudit = z.infer<typeof SkillAuditSchema>;

export const ListingSchema = z
  .object({
    id: z.string().describe('canonical path-style id {type}:{owner}/{repo}#{slug}'),
    slug: z.string().describe('unique plain slug; resolves the same listing as id'),
    type: ListingTypeSchema,
    name: z.string(),
    description: z.string().describe('plain text; may be empty when no source gave one'),
    repo: z.string().describe('GitHub owner/repo'),
    author: z.string(),
    category: z.string().describe('primary category slug (the value the category filter takes)'),
    categories: z.array(z.string()).describe('every category of the listing, primary first'),
    tags: z.array(z.string()),
    installs: z.number().int().nonnegative(),
    stars: z.number().int().nonnegative().describe('repository stars'),
    url: z.string().describe("absolute URL of this listing's page on the service"),
    updatedAt: z.string(),
    firstCommitAt: z
      .string()
      .optional()
      .describe(
        "the first commit that touched the listing's file at its path, when the catalog read the repository's history (git sources); decides which of a copy group is the origin (see /docs/copies)",
      ),
    repoUrl: z.string(),
    homepage: z.string().optional(),
    installCommand: z
      .string()
      .optional()
      .describe(
        'the command that installs or runs the listing, made from the listing: a skill names itself (npx skills add owner/repo --skill name); an MCP server runs its package (npx -y, uvx, docker run -i --rm)',
      ),
    installer: z.string().optional().describe('who provides installCommand; "third-party skills CLI" for npx skills add lines'),
    packages: z
      .array(McpPackageSchema)
      .optional()
      .describe("MCP servers: the packages it runs as (the official registry's shape), as a source gave them or as its published install line names"),
    remotes: z.array(McpRemoteSchema).optional().describe('MCP servers: remote endpoints (streamable-http or sse) a source gave'),
    trending: z.number().describe('install growth over the last 7 days against the earlier baseline (see /docs/ranking)'),
    searchTrend: z.number().describe('recent searches and click-throughs on this service (see /docs/ranking)'),
    metricsSource: Provenance.describe('whether the figure this listing is ranked by is real'),
    metrics: MetricsProvenanceSchema,
    installsHistory: z.array(z.number().int()).describe('cumulative daily installs, oldest first; last equals installs'),
    source: ListingSourceSchema,
    alsoListedIn: z.array(z.string()).optional(),
    marketplace: z.string().optional(),
    version: z.string().optional(),
    pluginCount: z.number().int().optional(),
    archived: z
      .string()
      .optional()
      .describe(
        'present when the listing is archived or moved, saying why ("moved to modelcontextprotocol/servers-archived"); the site\'s top lists leave such listings out, the API ranks them by their figures',
      ),
    files: z.array(z.string()).describe('paths of stored files (SKILL.md first); [] when none are stored'),
    copyOf: z.string().optional().describe("id of the origin of this listing's copy group, when this listing is a copy (see /docs/copies)"),
    copyKind: z.enum(['exact', 'modified']).optional().describe('with copyOf: an exact copy of the origin, or a modified one'),
    copySimilarity: z.number().optional().describe('with copyOf: word-bigram Jaccard similarity to the origin (1 for an exact copy)'),
    copies: z.number().int().nonnegative().optional().describe('how many listings copy this one (origins of a copy group only)'),
    audit: SkillAuditSchema.optional().describe('the rule-based audit of the stored files (listings with stored files only; see /docs/audit)'),
  })
  .meta({ id: 'Listing' });
export type Listing = z.infer<typeof ListingSchema>;

export const ListingFileSchema = z
  .object({ path: z.string(), size: z.number().int().nonnegative(), mediaType: z.string(), content: z.string() })
  .meta({ id: 'ListingFile' });
export type ListingFile = z.infer<typeof ListingFileSchema>;

export const ListingPageSchema = z
  .object({
    items: z.array(ListingSchema),
    limit: z.number().int(),
    offset: z.number().int(),
    total: z
      .number()
      .int()
      .describe(
        'listings the answer ranks across all pages: every listing matching q and the filters (for a partial answer, its full and partial matches), every listing the filters admit without q; for semantic, the candidates it ranked',
      ),
    hasMore: z.boolean(),
    next: z.string().nullable().describe('absolute URL of the next page; null on the last page'),
    pageToken: z.string().nullable().describe('opaque next-page token; equals cursor'),
    cursor: z.string().nullable().describe('opaque next-page token; pass it back as cursor'),
  })
  .meta({ id: 'ListingPage' });
export type ListingPage = z.infer<typeof ListingPageSchema>;

export const BatchRequestSchema = z
  .object({ ids: z.array(z.string().min(LIMITS.id.min).max(LIMITS.id.max)).min(1).max(LIMITS.batchIds) })
  .strict()
  .meta({ id: 'BatchRequest' });

export const BatchResultSchema = z.object({ items: z.array(ListingSchema), notFound: z.array(z.string()) }).meta({ id: 'BatchResult' });

export const CategorySchema = z
  .object({ type: ListingTypeSchema, name: z.string().describe('category slug'), label: z.string(), count: z.number().int() })
  .meta({ id: 'Category' });
export type Category = z.infer<typeof CategorySchema>;

export const StageSchema = z.object({ id: z.string(), name: z.string(), order: z.number().int() }).meta({ id: 'Stage' });

const ByType = z.object({
  skill: z.number().int(),
  marketplace: z.number().int(),
  plugin: z.number().int(),
  mcp: z.number().int(),
  workflow: z.number().int(),
});
export const CatalogStatsSchema = z
  .object({
    total: z.number().int(),
    byType: ByType,
    installs: z
      .number()
      .int()
      .describe('summed installs of the listings whose installs figure is real (realInstalls of them); estimates are apart, under estimated'),
    installsByType: ByType.describe('summed real installs per type'),
    realInstalls: ByType.describe('listings per type whose installs figure is real: what installs covers'),
    realStars: ByType.describe('listings per type whose stars figure is real'),
    realMetrics: ByType.describe('listings per type whose ranking figure is real (metricsSource real)'),
    estimated: z
      .object({
        installs: z.number().int().describe('summed synthetic installs: generated to fill gaps, never measured'),
        listings: z.number().int().describe('listings whose installs figure is synthetic'),
      })
      .describe('synthetic figures, reported apart and labelled; never part of installs'),
    updatedAt: z.string(),
    copies: z
      .object({
        groups: z.number().int().describe('copy groups of two or more listings'),
        copies: z.number().int().describe('listings that are copies (every member of a group but its origin)'),
        modified: z.number().int().describe('of those, modified copies'),
      })
      .optional()
      .describe('copy groups (see /docs/copies)'),
    audit: z
      .object({
        audited: z.number().int().describe('listings whose stored files were audited'),
        byLevel: z.object({ none: z.number().int(), info: z.number().int(), warn: z.number().int(), high: z.number().int() }),
        findingsByRule: z.record(z.string(), z.number().int()).describe('findings per rule id, every rule listed'),
      })
      .optional()
      .describe('the audit of stored files (see /docs/audit)'),
  })
  .meta({ id: 'CatalogStats' });
export type CatalogStats = z.infer<typeof CatalogStatsSchema>;

export const SiteMetaSchema = z.object({ brand: z.string(), tagline: z.string(), disclaimer: z.string(), lastUpdated: z.string() }).meta({ id: 'SiteMeta' });

export const VersioningPolicySchema = z
  .object({
    current: z.literal('1'),
    versions: z.array(z.string()),
    pathPrefix: z.literal('/api/v1'),
    aliases: z.array(z.string()),
    header: z.literal('API-Version'),
    deprecated: z.array(z.string()),
    deprecationHeaders: z.array(z.string()),
  })
  .meta({ id: 'VersioningPolicy' });

export const ErrorSchema = z.object({ code: z.string(), message: z.string(), resolution: z.string() }).meta({ id: 'Error' });

export const SandboxSchema = z
  .object({
    name: z.string(),
    description: z.string(),
    readOnly: z.literal(true),
    writes: z.literal(false),
    tokens: z.literal(false),
    listings: z.string(),
    api: z.string(),
  })
  .meta({ id: 'Sandbox' });

export const StaffProfileSchema = z
  .object({
    subject: z.string().describe("the token's sub claim"),
    name: z.string().nullable().describe('the name claim, null when the token has none'),
    email: z.string().nullable().describe('the email claim, null when the token has none'),
    roles: z.array(z.string()).describe('the roles of the configured role claim (STAFF_ROLE_CLAIM); contains the staff role'),
    issuer: z.string().describe("the token's iss claim"),
    issuedAt: IsoDateTime.nullable().describe('the iat claim, null when the token has none'),
    expiresAt: IsoDateTime.describe('the exp claim'),
  })
  .meta({ id: 'StaffProfile', description: 'The staff identity a verified Bearer JWT carries (GET /api/v1/auth/me).' });
export type StaffProfile = z.infer<typeof StaffProfileSchema>;

export const StaffBuildStatusSchema = z
  .object({
    build: z.string().describe('name of the build directory being served'),
    builtAt: IsoDateTime.nullable().describe('when the build finished; null when the build left no build.json'),
    baseUrl: z.string().nullable().describe('the public base URL the build was generated for'),
    timings: z.record(z.string(), z.number()).describe('milliseconds per build stage'),
    ingest: z
      .object({
        listings: z.number().int(),
        files: z.number().int(),
        historyRows: z.number().int(),
        added: z.number().int(),
        changed: z.number().int(),
        removed: z.number().int(),
        unchanged: z.number().int(),
        rejected: z.number().int(),
      })
      .nullable()
      .describe('counts of the ingest step; null when the build reused the existing database'),
    snapshotHash: z.string(),
    lastUpdated: z.string(),
    count: z.number().int().describe('listings being served'),
    rejects: z.number().int().nullable().describe('records the last ingest rejected; null when the build ran no ingest'),
  })
  .meta({ id: 'StaffBuildStatus', description: 'The last rebuild and the snapshot being served (GET /api/v1/staff/build).' });
export type StaffBuildStatus = z.infer<typeof StaffBuildStatusSchema>;
