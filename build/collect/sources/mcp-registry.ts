// The official MCP registry source (GET /v0.1/servers), synced the way the registry asks aggregators to: one full
// backfill (limit=100, following metadata.nextCursor), then incremental runs with updated_since = the highest
// `updatedAt` the registry itself stated (never the local clock: the registry's clock and its ingress cache
// decide what is "new"). The list has one row per server version, so rows are folded to one per server
// (isLatest, else the newest). Records written under every schema the registry has had are read: the 2025-07
// snake_case fields, `version_detail`, an empty `$schema`, `_meta` absent or with status directly in it.
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { McpPackageSchema, McpRemoteSchema, REPO_PATTERN, type McpPackage, type McpRemote } from '../../../src/domain/schemas.ts';
import { parseJson, readJsonState, sourceClient, writeJsonAtomic, type HttpTuning } from '../http.ts';
import type { McpRegistrySource } from '../sources-file.ts';
import { emptyStats, type Candidate, type ListingSourceResult, type SourceContext, type SourceStats } from '../types.ts';

export const OFFICIAL_META_KEY = 'io.modelcontextprotocol.registry/official';
const STATE_FILE = 'registry-state.json';
const USER_AGENT = 'catalog-collect (MCP registry aggregator)';

interface RegistryState {
  /** The endpoint the mark belongs to: another URL starts over with a full backfill. */
  url: string;
  /** The highest official `updatedAt` seen, exactly as the registry wrote it. */
  highWaterMark?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const str = (value: unknown): string | undefined => (typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined);
const bool = (value: unknown): boolean | undefined => (typeof value === 'boolean' ? value : undefined);
/** A field under its camelCase name or the snake_case name of the 2025-07 schema. */
const field = (object: Json, camel: string): unknown => object[camel] ?? object[camel.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)];

/** The list endpoint: a base URL gets /v0.1/servers; a URL that already names a servers path is used as is. */
export function serversEndpoint(url: string): string {
  const trimmed = url.replace(/\/+$/, '');
  return /\/servers$/.test(trimmed) ? trimmed : `${trimmed}/v0.1/servers`;
}

/** The GitHub `owner/repo` of a repository URL (https, git+https, ssh, with /tree/... or .git), case kept. */
export function githubRepoOf(url: string | undefined): string | undefined {
  if (!url) return undefined;
  const match =
    /^(?:git\+)?(?:https?:\/\/|ssh:\/\/git@|git@)?(?:www\.)?github\.com[/:]([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9_.-]+?)(?:\.git)?(?:[/#?].*)?$/i.exec(
      url.trim(),
    );
  if (!match) return undefined;
  const repo = `${match[1]}/${match[2]}`;
  return REPO_PATTERN.test(repo) ? repo : undefined;
}

/** The registry's own metadata of a row: the official key, else any `/official` key, else a `_meta` that holds it directly. */
function officialMeta(row: Json, server: Json): Json {
  const meta = isObject(row._meta) ? row._meta : isObject(server._meta) ? server._meta : undefined;
  if (!meta) return {};
  if (isObject(meta[OFFICIAL_META_KEY])) return meta[OFFICIAL_META_KEY];
  for (const [key, value] of Object.entries(meta)) if (key.endsWith('/official') && isObject(value)) return value;
  if ('status' in meta || 'isLatest' in meta || 'is_latest' in meta || 'updatedAt' in meta) return meta;
  // Another registry (this product's own /v0.1 among them) keeps the same facts under its own reverse-DNS key.
  for (const value of Object.values(meta)) if (isObject(value) && ('isLatest' in value || 'updatedAt' in value)) return value;
  return {};
}

interface Row {
  server: Json;
  name: string;
  status: string;
  isLatest?: boolean;
  updatedAt?: string;
  publishedAt?: string;
  order: number;
}

function readRow(raw: unknown, order: number): Row | undefined {
  if (!isObject(raw)) return undefined;
  // The 2025-07 list returned the server object itself; later ones wrap it in {server, _meta}.
  const server = isObject(raw.server) ? raw.server : raw;
  const name = str(server.name);
  if (!name) return undefined;
  const meta = officialMeta(raw, server);
  return {
    server,
    name,
    status: str(meta.status) ?? str(server.status) ?? 'active',
    isLatest: bool(field(meta, 'isLatest')),
    updatedAt: str(field(meta, 'updatedAt')),
    publishedAt: str(field(meta, 'publishedAt')),
    order,
  };
}

const time = (iso: string | undefined): number => (iso ? Date.parse(iso) : Number.NaN);

/** True when `a` should stand for the server rather than `b`: isLatest first, then the newest, then the later row. */
function preferred(a: Row, b: Row): boolean {
  if ((a.isLatest === true) !== (b.isLatest === true)) return a.isLatest === true;
  const ta = time(a.updatedAt ?? a.publishedAt);
  const tb = time(b.updatedAt ?? b.publishedAt);
  if (!Number.isNaN(ta) && !Number.isNaN(tb) && ta !== tb) return ta > tb;
  return a.order > b.order;
}

/** Inputs with their keys in camelCase; with `named`, one without a name is dropped rather than the whole package. */
function keyValues(list: unknown, named = false): Json[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const out = list
    .filter((item): item is Json => isObject(item) && (!named || typeof item.name === 'string'))
    .map((item) => {
      const kv: Json = {};
      for (const [key, value] of Object.entries(item)) kv[key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())] = value;
      return kv;
    });
  return out.length > 0 ? out : undefined;
}

/** A package in today's camelCase shape, or a reason it cannot be one. */
function normalisePackage(raw: Json): McpPackage | string {
  const versionDetail = isObject(raw.version_detail) ? raw.version_detail : undefined;
  const transportRaw = raw.transport;
  const transport = isObject(transportRaw)
    ? { type: str(transportRaw.type) ?? 'stdio', ...(str(transportRaw.url) ? { url: str(transportRaw.url) } : {}) }
    : { type: str(transportRaw) ?? 'stdio' };
  const candidate: Json = {
    // registry_name was the 2025-07 name of registryType; `name` that of identifier.
    registryType: str(field(raw, 'registryType')) ?? str(raw.registry_name),
    registryBaseUrl: str(field(raw, 'registryBaseUrl')),
    identifier: str(raw.identifier) ?? str(raw.name),
    version: str(raw.version) ?? str(versionDetail?.version),
    runtimeHint: str(field(raw, 'runtimeHint')),
    transport,
    environmentVariables: keyValues(field(raw, 'environmentVariables'), true),
    packageArguments: keyValues(field(raw, 'packageArguments')),
    runtimeArguments: keyValues(field(raw, 'runtimeArguments')),
  };
  for (const key of Object.keys(candidate)) if (candidate[key] === undefined) delete candidate[key];
  const parsed = McpPackageSchema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  return `package ${str(candidate.identifier) ?? '?'}: ${issue.path.join('.') || 'package'}: ${issue.message}`;
}

function normaliseRemote(raw: Json): McpRemote | string {
  const candidate: Json = {
    type: str(raw.type) ?? str(raw.transport_type) ?? str(raw.transportType),
    url: str(raw.url),
    headers: keyValues(raw.headers, true),
  };
  for (const key of Object.keys(candidate)) if (candidate[key] === undefined) delete candidate[key];
  const parsed = McpRemoteSchema.safeParse(candidate);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  return `remote ${str(candidate.url) ?? '?'}: ${issue.path.join('.') || 'remote'}: ${issue.message}`;
}

/** Normalised and deduplicated: a record that lists the same package twice (seen in the wild) keeps one. */
function normaliseList<T>(list: unknown, normalise: (raw: Json) => T | string, key: (item: T) => string, warn: (message: string) => void): T[] | undefined {
  if (!Array.isArray(list)) return undefined;
  const seen = new Set<string>();
  const out: T[] = [];
  for (const raw of list) {
    if (!isObject(raw)) continue;
    const item = normalise(raw);
    if (typeof item === 'string') {
      warn(`${item}; left out`);
      continue;
    }
    const id = key(item);
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(item);
  }
  return out.length > 0 ? out : undefined;
}

/** The candidate a registry row stands for, or a reason it cannot be one (no GitHub repository). */
function candidateOf(row: Row, warn: (message: string) => void): Candidate | string {
  const { server } = row;
  const repository = isObject(server.repository) ? server.repository : undefined;
  const repo = githubRepoOf(str(repository?.url));
  if (!repo) return `no GitHub repository (${str(repository?.url) ?? 'none stated'}): a listing needs one; skipped`;
  const slash = row.name.indexOf('/');
  const candidate: Candidate = {
    type: 'mcp',
    name: str(server.title) ?? (slash >= 0 ? row.name.slice(slash + 1) : row.name),
    repo,
    registryName: row.name,
    status: row.status === 'deprecated' ? 'deprecated' : 'active',
  };
  const description = str(server.description);
  if (description) candidate.description = description;
  const subfolder = str(repository?.subfolder)?.replace(/^\.?\/+|\/+$/g, '');
  if (subfolder) candidate.path = subfolder;
  const homepage = str(field(server, 'websiteUrl'));
  if (homepage) candidate.homepage = homepage;
  const versionDetail = isObject(server.version_detail) ? server.version_detail : undefined;
  const version = str(server.version) ?? str(versionDetail?.version);
  if (version) candidate.version = version;
  if (row.updatedAt && !Number.isNaN(time(row.updatedAt))) candidate.updatedAt = new Date(row.updatedAt).toISOString();
  const packages = normaliseList(
    server.packages,
    normalisePackage,
    (p) => JSON.stringify([p.registryType, p.identifier, p.version, p.transport.type, p.transport.url]),
    warn,
  );
  if (packages) candidate.packages = packages;
  const remotes = normaliseList(server.remotes, normaliseRemote, (r) => JSON.stringify([r.type, r.url]), warn);
  if (remotes) candidate.remotes = remotes;
  return candidate;
}

const failed = (error: string, stats: SourceStats): ListingSourceResult => ({
  status: 'failed',
  error,
  candidates: [],
  removed: [],
  absenceIsRemoval: false,
  stats,
});

/** Reads the registry: a full backfill the first time (or for a new URL), incremental with updated_since after. */
export async function collectMcpRegistry(entry: McpRegistrySource, ctx: SourceContext, tuning: HttpTuning = {}): Promise<ListingSourceResult> {
  const stats = emptyStats();
  const endpoint = serversEndpoint(entry.url);
  const statePath = join(ctx.stateDir, STATE_FILE);
  const previous = readJsonState<RegistryState>(statePath);
  const since = previous?.url === endpoint ? previous.highWaterMark : undefined;
  const incremental = since !== undefined;
  const http = sourceClient(stats, entry, ctx.signal, { accept: 'application/json', 'user-agent': USER_AGENT }, tuning);
  ctx.log(incremental ? `mcp-registry: changes since ${since} from ${endpoint}` : `mcp-registry: full read of ${endpoint}`);

  const rows = new Map<string, Row>();
  let highWaterMark = since;
  let order = 0;
  const seenCursors = new Set<string>();
  let cursor: string | undefined;
  let page = 0;
  for (;;) {
    page++;
    if (page > entry.maxPages) return failed(`stopped after ${entry.maxPages} pages (maxPages) with more to read`, stats);
    const url = new URL(endpoint);
    url.searchParams.set('limit', String(entry.limit));
    if (cursor) url.searchParams.set('cursor', cursor);
    // The registry forces include_deleted with updated_since (and refuses include_deleted=false): deletions come along.
    if (since) url.searchParams.set('updated_since', since);
    if (page > 1 && entry.delayMs > 0) {
      try {
        await sleep(entry.delayMs, undefined, ctx.signal ? { signal: ctx.signal } : undefined);
      } catch {
        return failed(`aborted before page ${page}`, stats);
      }
    }
    const answer = await http.request(url.href);
    const where = `page ${page} (${url.href})`;
    if (!answer.ok) return failed(`${where}: ${answer.message}`, stats);
    if (answer.status !== 200) return failed(`${where}: answered ${answer.status}: ${answer.text.slice(0, 200)}`, stats);
    const body = parseJson(answer.text);
    if (!body) return failed(`${where}: the answer is not complete JSON (${answer.text.length} bytes)`, stats);
    const value = body.value;
    if (!isObject(value) || !Array.isArray(value.servers)) return failed(`${where}: no servers array in the answer`, stats);
    for (const raw of value.servers) {
      const row = readRow(raw, order++);
      if (!row) {
        stats.warnings.push({ where, message: 'a server without a name; skipped' });
        continue;
      }
      if (row.updatedAt && !Number.isNaN(time(row.updatedAt)) && (highWaterMark === undefined || time(row.updatedAt) > time(highWaterMark)))
        highWaterMark = row.updatedAt;
      const held = rows.get(row.name);
      if (!held || preferred(row, held)) rows.set(row.name, row);
    }
    const metadata = isObject(value.metadata) ? value.metadata : {};
    // nextCursor today; next_cursor in the generic API's examples and the oldest handler (which also omitted metadata).
    const next = str(metadata.nextCursor) ?? str(metadata.next_cursor) ?? str(value.next_cursor) ?? str(value.nextCursor);
    if (!next) break;
    if (seenCursors.has(next)) return failed(`${where}: the cursor ${JSON.stringify(next)} came back a second time (a loop); stopped`, stats);
    seenCursors.add(next);
    cursor = next;
  }

  // A full read that found nothing is not evidence that every server went away (the preview registry has been
  // reset before): it would make every listing of this source removable by absence.
  if (!incremental && rows.size === 0) return failed(`${endpoint} listed no servers at all; previous listings kept`, stats);

  const candidates: Candidate[] = [];
  const removed: Candidate[] = [];
  for (const row of rows.values()) {
    const warn = (message: string) => stats.warnings.push({ where: row.name, message });
    const candidate = candidateOf(row, warn);
    if (typeof candidate === 'string') {
      // A deleted server without a repository identifies no listing: nothing to remove, nothing to say.
      if (row.status !== 'deleted') warn(candidate);
      continue;
    }
    if (row.status === 'deleted') removed.push(candidate);
    else candidates.push(candidate);
  }
  candidates.sort((a, b) => (a.registryName! < b.registryName! ? -1 : 1));
  removed.sort((a, b) => (a.registryName! < b.registryName! ? -1 : 1));
  // Only now: a run that failed half-way must not move the mark past servers it never delivered.
  writeJsonAtomic(statePath, { url: endpoint, ...(highWaterMark ? { highWaterMark } : {}) } satisfies RegistryState);
  ctx.log(`mcp-registry: ${candidates.length} servers, ${removed.length} deleted, ${page} pages`);
  return { status: 'ok', candidates, removed, absenceIsRemoval: !incremental, stats };
}
