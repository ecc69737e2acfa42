// `catalog serve <dir>`, the build half: what a directory serves (a mirror, a data directory or one build), a
// mirror whose build is missing or stale for its shards or its public URL built first. The CLI then runs the
// shim's serve entry (server/serve.ts) over it, read-only.
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { buildDirs, currentBuild } from '../../src/artifacts/build-dirs.ts';
import { ensureMirrorBuild, isMirrorDir, mirrorDataDir } from './mirror-build.ts';

export type ServedKind = 'mirror' | 'data' | 'build';

export interface ServeTarget {
  kind: ServedKind;
  /** The build directory createApp serves (runtime/ + site/). */
  buildDir: string;
  /** The data directory (for a data dir, where `current` lives; else the directory itself). */
  dataDir: string;
  /** A mirror built before serving (its first serve, new shards, or another public URL). */
  built: boolean;
}

export async function resolveServeTarget(
  dir: string,
  options: { publicUrl?: string | undefined; defaultPublicUrl?: string | undefined; embeddingModelDir?: string | undefined; verbose?: boolean } = {},
): Promise<ServeTarget> {
  const root = resolve(dir);
  if (isMirrorDir(root)) {
    const { buildDir, built } = await ensureMirrorBuild(root, {
      publicUrl: options.publicUrl,
      defaultPublicUrl: options.defaultPublicUrl,
      embeddingModelDir: options.embeddingModelDir,
      quiet: !options.verbose,
    });
    return { kind: 'mirror', buildDir, dataDir: mirrorDataDir(root), built };
  }
  const current = currentBuild(buildDirs(root));
  if (current) return { kind: 'data', buildDir: current, dataDir: root, built: false };
  if (existsSync(join(root, 'runtime', 'manifest.json'))) return { kind: 'build', buildDir: root, dataDir: root, built: false };
  throw new Error(`${root} is neither a mirror (catalog mirror), a data directory (with current/) nor a build (with runtime/)`);
}
