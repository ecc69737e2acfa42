// Staff-only JSON routes (SERVICE.md 1.4): every handler goes through the one staff guard.
import { readFile } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { z } from 'zod';
import type { StaffBuildStatus } from '../../src/domain/schemas.ts';
import { CatalogError } from '../../src/domain/contract/errors.ts';
import { BUILD_RECORD_FILE, buildDirs, currentBuild } from '../../src/artifacts/build-dirs.ts';
import { staffOnly, type StaffGuard } from '../auth/staff-guard.ts';
import type { Snapshot } from '../catalog/snapshot.ts';
import { json, type HandlersFor } from '../http/handler.ts';
import type { Services } from '../services.ts';

const Count = z.number().int().nonnegative();

/** What build/build-pipeline.ts records in <build>/build.json; only the fields staff see. */
const BuildRecordSchema = z.object({
  builtAt: z.string(),
  baseUrl: z.string(),
  timings: z.record(z.string(), z.number()),
  ingest: z
    .object({
      listings: Count,
      files: Count,
      historyRows: Count,
      added: Count,
      changed: Count,
      removed: Count,
      unchanged: Count,
      rejected: Count,
    })
    .optional(),
});

async function buildRecord(buildDir: string): Promise<z.infer<typeof BuildRecordSchema> | undefined> {
  const text = await readFile(join(buildDir, BUILD_RECORD_FILE), 'utf8').catch(() => undefined);
  if (text === undefined) return undefined;
  try {
    const parsed = BuildRecordSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

export async function buildStatus(snapshot: Snapshot): Promise<StaffBuildStatus> {
  const record = await buildRecord(snapshot.buildDir);
  const { manifest } = snapshot.store;
  return {
    build: basename(snapshot.buildDir),
    builtAt: record?.builtAt ?? null,
    baseUrl: record?.baseUrl ?? null,
    timings: record?.timings ?? {},
    ingest: record?.ingest ?? null,
    snapshotHash: manifest.snapshotHash,
    lastUpdated: manifest.lastUpdated,
    count: manifest.count,
    rejects: record?.ingest?.rejected ?? null,
  };
}

export function staffHandlers(services: Services, guard: StaffGuard): HandlersFor<'getStaffBuildStatus' | 'reloadStaffBuild'> {
  return {
    // The snapshot is taken once so build.json and the manifest describe the same build.
    getStaffBuildStatus: staffOnly(guard, async () => json(200, await buildStatus(services.catalog.current))),
    // The daily rebuild's way to switch a shim it cannot signal: load the build <data>/current points to.
    reloadStaffBuild: staffOnly(guard, async () => {
      const next = currentBuild(buildDirs(services.config.dataDir));
      if (!next) {
        throw new CatalogError('service_unavailable', `There is no build under ${basename(services.config.dataDir)}/current to switch to.`, {
          resolution: 'Run `npm run catalog -- build` (or rebuild) first, then reload.',
        });
      }
      if (next !== services.catalog.current.buildDir) {
        try {
          services.catalog.swap(next);
        } catch (error) {
          services.logger.error({ err: error, buildDir: next }, 'the newest build could not be loaded');
          throw new CatalogError(
            'service_unavailable',
            `The build ${basename(next)} could not be loaded; still serving ${basename(services.catalog.current.buildDir)}.`,
            {
              resolution: 'Check the shim log, rebuild, then reload again.',
            },
          );
        }
        services.logger.info({ buildDir: next }, 'switched to a new build');
      }
      return json(200, await buildStatus(services.catalog.current));
    }),
  };
}
