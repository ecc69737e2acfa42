// A mirror's own build. The origin publishes, beside its shards, the export it ingested (records as ingested,
// history end in the manifest) and every stored file; the mirror ingests those verified bytes and runs this
// checkout's build over them with its own public URL. The build being deterministic, the mirror serves
// everything the origin serves (pages, llms.txt, OpenAPI, discovery files, feeds, embeddings for `semantic`)
// with its own origin in every absolute URL. Built once per fetched snapshot and URL: `serve` reuses it.
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { z } from 'zod';
import { ListingFileSchema } from '../../src/domain/schemas.ts';
import { buildDirs, currentBuild } from '../../src/artifacts/build-dirs.ts';
import { isCurrentRuntime } from '../../src/artifacts/runtime-manifest.ts';
import { runBuild } from '../build-pipeline.ts';
import type { ShardManifest } from '../stages/shards-stage.ts';
import { parseShardManifest, SHARD_MANIFEST_PATH } from './shard-manifest.ts';

/** At the root of a mirror directory: where it came from (and that it is a mirror, for `serve`). */
export const MIRROR_STAMP = 'mirror.json';

const MirrorStampSchema = z.object({
  origin: z.string(),
  mirroredAt: z.string(),
  snapshotHash: z.string(),
  /** What the current build of data/ was made from: the shards manifest's digest and the public URL. */
  built: z.object({ manifestSha256: z.string(), publicUrl: z.string() }).optional(),
});
export type MirrorStamp = z.infer<typeof MirrorStampSchema>;

export const isMirrorDir = (dir: string): boolean => existsSync(join(dir, MIRROR_STAMP));

/** The data directory of a mirror's own builds (catalog.db, builds/, current). */
export const mirrorDataDir = (dir: string): string => join(dir, 'data');

export function readMirrorStamp(dir: string): MirrorStamp {
  return MirrorStampSchema.parse(JSON.parse(readFileSync(join(dir, MIRROR_STAMP), 'utf8')));
}

export function writeMirrorStamp(dir: string, stamp: MirrorStamp): void {
  const file = join(dir, MIRROR_STAMP);
  writeFileSync(`${file}.part-${process.pid}`, JSON.stringify(stamp, null, 2) + '\n');
  renameSync(`${file}.part-${process.pid}`, file);
}

const digest = (text: string) => createHash('sha256').update(text).digest('hex');

/** Every stored file of the shards as the export's files/<slug>/<path>, confined to that directory. */
function writeStoredFiles(siteDir: string, manifest: ShardManifest, filesDir: string): void {
  rmSync(filesDir, { recursive: true, force: true });
  for (const entry of manifest.files) {
    const slug = basename(entry.path, '.json');
    const files = z.array(ListingFileSchema).parse(JSON.parse(readFileSync(join(siteDir, entry.path), 'utf8')));
    const root = join(filesDir, slug);
    for (const file of files) {
      const target = resolve(root, file.path);
      if (!target.startsWith(root + '/')) throw new Error(`${entry.path}: stored file path ${file.path} leaves its listing's directory`);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, file.content);
    }
  }
}

/** searchTrend folds in the origin's search counters, which a mirror has not got: it takes them from the shards. */
function originSearchTrend(siteDir: string, manifest: ShardManifest): Map<string, number> {
  const trend = new Map<string, number>();
  for (const page of manifest.collections.all!.pages) {
    for (const listing of JSON.parse(readFileSync(join(siteDir, page.path), 'utf8')) as Array<{ id: string; searchTrend?: number }>) {
      if (listing.searchTrend) trend.set(listing.id, listing.searchTrend);
    }
  }
  return trend;
}

export interface MirrorBuild {
  buildDir: string;
  /** False when the current build already came from these shards and this URL. */
  built: boolean;
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** Scheme, host and port, with every loopback name as one (http://localhost:8080 is http://127.0.0.1:8080). */
function address(url: string): string {
  const parsed = new URL(url);
  return `${parsed.protocol}//${LOOPBACK.has(parsed.hostname) ? 'localhost' : parsed.hostname}:${parsed.port}`;
}

/** Whether two URLs reach the same server. */
export function sameOrigin(a: string, b: string): boolean {
  return address(a) === address(b);
}

/**
 * A loopback URL (localhost, 127.0.0.1, [::1]) reaches a process only on the port it names: a mirror served on
 * another port with pages built for it would send every absolute link (pages, sitemap, MCP connect URLs) elsewhere.
 */
function loopbackOnOtherPort(built: string, serving: string): boolean {
  const [a, b] = [new URL(built), new URL(serving)];
  return LOOPBACK.has(a.hostname) && LOOPBACK.has(b.hostname) && a.port !== b.port;
}

/**
 * The public URL a mirror is built for: the one given, else the one it was built for (unless that is a loopback
 * address on another port than the default, the address it is served on), else the default. Never its origin's own
 * address: a PORT or PUBLIC_BASE_URL meant for the origin would make the mirror's pages link to the origin.
 */
export function mirrorPublicUrl(stamp: MirrorStamp, options: { publicUrl?: string | undefined; defaultPublicUrl?: string | undefined }): string {
  const { publicUrl: given, defaultPublicUrl: fallback } = options;
  const built = stamp.built?.publicUrl;
  const chosen = given ?? (built && !(fallback && loopbackOnOtherPort(built, fallback)) ? built : fallback);
  if (!chosen) throw new Error(`no public URL to build the mirror for (catalog mirror --public-url)`);
  if (sameOrigin(chosen, stamp.origin)) {
    throw new MirrorUrlError(
      `${chosen} is the address of the mirror's origin, ${stamp.origin} (a PORT or PUBLIC_BASE_URL set for the origin?): the mirror's pages would link to the origin. ` +
        `Serve it on another port (catalog serve <dir> --port 8081) or name its own address (--public-url).`,
    );
  }
  return chosen.replace(/\/+$/, '');
}

/** The public URL a mirror would be built for is its origin's. */
export class MirrorUrlError extends Error {
  override name = 'MirrorUrlError';
}

/** The mirror's current build for its fetched shards and `publicUrl`, made when missing or stale. */
export async function ensureMirrorBuild(
  dir: string,
  options: {
    publicUrl?: string | undefined;
    defaultPublicUrl?: string | undefined;
    embeddingModelDir?: string | undefined;
    force?: boolean;
    quiet?: boolean;
  } = {},
): Promise<MirrorBuild> {
  const siteDir = join(dir, 'site');
  const manifestPath = join(siteDir, SHARD_MANIFEST_PATH);
  if (!existsSync(manifestPath)) throw new Error(`${dir} holds no complete mirror (no ${SHARD_MANIFEST_PATH}); run catalog mirror first`);
  const stamp = readMirrorStamp(dir);
  const text = readFileSync(manifestPath, 'utf8');
  const publicUrl = mirrorPublicUrl(stamp, options);
  const wanted = { manifestSha256: digest(text), publicUrl };
  const current = currentBuild(buildDirs(mirrorDataDir(dir)));
  // A build this code cannot read (made by an older checkout) is built again.
  if (!options.force && current && isCurrentRuntime(current) && stamp.built?.manifestSha256 === wanted.manifestSha256 && stamp.built.publicUrl === publicUrl) {
    return { buildDir: current, built: false };
  }
  const manifest = parseShardManifest(text);
  const filesDir = join(dir, 'export-files');
  writeStoredFiles(siteDir, manifest, filesDir);
  const result = await runBuild({
    dataDir: mirrorDataDir(dir),
    exportPath: join(siteDir, manifest.export.path),
    filesDir,
    ...(manifest.export.historyEnd ? { historyEnd: manifest.export.historyEnd } : {}),
    searchTrend: originSearchTrend(siteDir, manifest),
    // The mirror's store has no history of listings the origin removed: it takes the origin's list, so they answer 410 here too.
    gone: new Map(Object.entries(z.record(z.string(), z.string()).parse(JSON.parse(readFileSync(join(siteDir, manifest.gone.path), 'utf8'))))),
    baseUrl: publicUrl,
    embeddingModelDir: options.embeddingModelDir,
    quiet: options.quiet ?? true,
    ...(options.force ? { force: true } : {}),
  });
  writeMirrorStamp(dir, { ...stamp, built: wanted });
  return { buildDir: result.buildDir, built: true };
}
