// The runtime artifacts of a mirror, derived from its verified shards through the build's own index code
// (buildRuntimeArtifacts over shardSource). Derived once, at the end of `mirror` or on the first `serve`;
// runtime/source.json records which shards manifest they were derived from, so `serve` re-indexes only when
// the shards changed under it.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildRuntimeArtifacts } from '../runtime-artifacts.ts';
import { parseShardManifest, SHARD_MANIFEST_PATH } from './shard-manifest.ts';
import { shardSource } from './shard-source.ts';

/** At the root of a mirror directory: where it came from (and that it is a mirror, for `serve`). */
export const MIRROR_STAMP = 'mirror.json';
const SOURCE_FILE = 'source.json';

export interface MirrorStamp {
  origin: string;
  mirroredAt: string;
  snapshotHash: string;
}

export function isMirrorDir(dir: string): boolean {
  return existsSync(join(dir, MIRROR_STAMP));
}

function manifestDigest(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/** Whether runtime/ holds artifacts derived from the shards manifest now in site/. */
export function mirrorRuntimeCurrent(dir: string): boolean {
  const manifestPath = join(dir, 'site', SHARD_MANIFEST_PATH);
  const sourcePath = join(dir, 'runtime', SOURCE_FILE);
  if (!existsSync(manifestPath) || !existsSync(sourcePath) || !existsSync(join(dir, 'runtime', 'manifest.json'))) return false;
  try {
    const source = JSON.parse(readFileSync(sourcePath, 'utf8')) as { shardsManifestSha256?: unknown };
    return source.shardsManifestSha256 === manifestDigest(readFileSync(manifestPath, 'utf8'));
  } catch {
    return false;
  }
}

export async function ensureMirrorRuntime(
  dir: string,
  options: { force?: boolean; onProgress?: ((done: number, total: number) => void) | undefined } = {},
): Promise<{ indexed: boolean }> {
  if (!options.force && mirrorRuntimeCurrent(dir)) return { indexed: false };
  const manifestPath = join(dir, 'site', SHARD_MANIFEST_PATH);
  if (!existsSync(manifestPath)) throw new Error(`${dir} holds no complete mirror (no ${SHARD_MANIFEST_PATH}); run catalog mirror first`);
  const text = readFileSync(manifestPath, 'utf8');
  const manifest = parseShardManifest(text);
  const runtimeDir = join(dir, 'runtime');
  const temp = `${runtimeDir}.tmp-${process.pid}`;
  rmSync(temp, { recursive: true, force: true });
  try {
    await buildRuntimeArtifacts({ source: shardSource(join(dir, 'site'), manifest), outDir: temp, onProgress: options.onProgress });
    writeFileSync(join(temp, SOURCE_FILE), JSON.stringify({ shardsManifestSha256: manifestDigest(text) }) + '\n');
    rmSync(runtimeDir, { recursive: true, force: true });
    renameSync(temp, runtimeDir);
  } catch (error) {
    rmSync(temp, { recursive: true, force: true });
    throw error;
  }
  return { indexed: true };
}
