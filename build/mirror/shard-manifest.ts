// The published shards manifest (build/stages/shards-stage.ts) as a mirror reads it from another instance: parsed, never
// cast, and every path confined to /shards/ so a hostile manifest cannot write outside the mirror.
import { z } from 'zod';
import { CHANGE_LOG_PATH } from '../change-log.ts';
import { SHARD_EXPORT_PATH, SHARD_FORMAT, SHARD_GONE_PATH, SHARDS_ROOT, type ShardEntry, type ShardManifest } from '../stages/shards-stage.ts';

const ShardPath = z
  .string()
  .regex(/^\/shards\/[a-z0-9][a-z0-9._/-]*\.json$/, 'must be a .json path under /shards/')
  .refine((path) => !path.split('/').includes('..'), 'must not leave /shards/');

const ShardEntrySchema = z.object({
  path: ShardPath,
  count: z.number().int().nonnegative(),
  bytes: z.number().int().nonnegative(),
  sha256: z.string().regex(/^[0-9a-f]{64}$/),
});

export const ShardManifestSchema = z.object({
  format: z.literal(SHARD_FORMAT),
  snapshotHash: z.string(),
  lastUpdated: z.string(),
  count: z.number().int().nonnegative(),
  pageSize: z.number().int().positive(),
  collections: z.record(z.string(), z.object({ count: z.number().int().nonnegative(), pages: z.array(ShardEntrySchema) })),
  files: z.array(ShardEntrySchema),
  export: ShardEntrySchema.extend({
    path: z.literal(SHARD_EXPORT_PATH),
    historyEnd: z.union([z.literal(''), z.iso.date()]),
  }),
  changes: ShardEntrySchema.extend({ path: z.literal(CHANGE_LOG_PATH), from: z.string().nullable() }),
  gone: ShardEntrySchema.extend({ path: z.literal(SHARD_GONE_PATH) }),
});

export const SHARD_MANIFEST_PATH = `${SHARDS_ROOT}/manifest.json`;

export function parseShardManifest(text: string): ShardManifest {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new Error(`the shards manifest is not JSON (${(error as Error).message})`, { cause: error });
  }
  const parsed = ShardManifestSchema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new Error(`the shards manifest is not valid: ${issue.path.join('.') || 'manifest'}: ${issue.message}`);
  }
  if (!parsed.data.collections.all) throw new Error('the shards manifest has no `all` collection');
  return parsed.data;
}

/** Every file the manifest lists: the pages of every collection, the stored files, the export, the change log and the removed listings. */
export function manifestEntries(manifest: ShardManifest): ShardEntry[] {
  return [
    ...Object.values(manifest.collections).flatMap((collection) => collection.pages),
    ...manifest.files,
    manifest.export,
    manifest.changes,
    manifest.gone,
  ];
}
