// `catalog serve <dir>`: the normal shim (server/app.ts) over a mirror, a data directory or one build,
// read-only: no search counters, no pid file (a mirror whose build is missing or stale for its shards or its
// public URL is built once, before serving).
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Logger } from 'pino';
import { createApp, type App } from '../../server/app.ts';
import type { Config } from '../../server/config.ts';
import { buildDirs, currentBuild } from '../build-dirs.ts';
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
  options: { publicUrl?: string | undefined; defaultPublicUrl?: string | undefined; verbose?: boolean } = {},
): Promise<ServeTarget> {
  const root = resolve(dir);
  if (isMirrorDir(root)) {
    const { buildDir, built } = await ensureMirrorBuild(root, { publicUrl: options.publicUrl, defaultPublicUrl: options.defaultPublicUrl, quiet: !options.verbose });
    return { kind: 'mirror', buildDir, dataDir: mirrorDataDir(root), built };
  }
  const current = currentBuild(buildDirs(root));
  if (current) return { kind: 'data', buildDir: current, dataDir: root, built: false };
  if (existsSync(join(root, 'runtime', 'manifest.json'))) return { kind: 'build', buildDir: root, dataDir: root, built: false };
  throw new Error(`${root} is neither a mirror (catalog mirror), a data directory (with current/) nor a build (with runtime/)`);
}

/** The shim over a served directory, read-only: search counting is off whatever the environment says. */
export function createServeApp(config: Config, target: ServeTarget, logger?: Logger): App {
  const readOnly: Config = { ...config, dataDir: target.dataDir, signals: { ...config.signals, enabled: false } };
  return createApp(readOnly, { buildDir: target.buildDir, ...(logger ? { logger } : {}) });
}
