// Guarantees the mcp-registry source reads a real registry over HTTP: the product's own /v0.1/servers, serving a
// small fixture catalog, is collected in full (every MCP listing once, with its name, description, repository and
// packages), then incrementally from the high-water mark of the answers' updatedAt.
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import { collectMcpRegistry } from '../../build/collect/sources/mcp-registry.ts';
import { McpRegistrySourceSchema } from '../../build/collect/sources-file.ts';
import type { SourceContext } from '../../build/collect/types.ts';
import { packageOf, serverName } from '../../src/domain/agents/registry-mapping.ts';
import type { ListingRecord } from '../../src/domain/schemas.ts';
import { snapshotRecords, writeExport } from '../support/fixtures.ts';
import { startServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';

let dataDir: string;
let server: TestServer;
let records: ListingRecord[];

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'catalog-collect-registry-'));
  // 130 servers: two pages of 100, so the cursor is followed.
  records = snapshotRecords()
    .filter((r) => r.type === 'mcp')
    .slice(0, 130);
  const exportPath = writeExport(join(dataDir, 'export'), records);
  const { buildDir } = await runBuild({ dataDir, exportPath, baseUrl: TEST_BASE_URL, quiet: true, stages: [INDEX_STAGE] });
  server = await startServer({}, { buildDir }, { CATALOG_DATA_DIR: dataDir, SEARCH_SIGNALS: 'off' });
}, 180_000);
afterAll(async () => {
  await server?.close();
  rmSync(dataDir, { recursive: true, force: true });
});

const context = (stateDir: string): SourceContext => ({ stateDir, now: new Date('2026-11-27T00:00:00Z'), log: () => {}, env: {} });

describe('collecting the product’s own /v0.1/servers', () => {
  it('reads every server once, full then incremental', async () => {
    const stateDir = mkdtempSync(join(dataDir, 'state-'));
    const entry = McpRegistrySourceSchema.parse({ kind: 'mcp-registry', url: server.origin, delayMs: 0 });
    const result = await collectMcpRegistry(entry, context(stateDir));
    expect(result.error).toBeUndefined();
    expect(result).toMatchObject({ status: 'ok', absenceIsRemoval: true, removed: [] });
    expect(result.stats.requests).toBe(2);
    expect(result.candidates).toHaveLength(records.length);

    const byName = new Map(result.candidates.map((c) => [c.registryName, c]));
    expect(byName.size).toBe(records.length);
    for (const record of records) {
      const candidate = byName.get(serverName(record));
      expect(candidate, record.slug).toBeDefined();
      expect(candidate).toMatchObject({ type: 'mcp', name: record.name, repo: record.repo, status: 'active' });
      expect(candidate!.description!.length).toBeGreaterThan(0);
      // The registry's description is the first 100 characters of ours, cut at a word (one is made up for none).
      if (record.description.trim()) expect(record.description.replace(/\s+/g, ' ')).toContain(candidate!.description!.replace(/…$/, ''));
      const pkg = packageOf(record.installCommand);
      if (pkg) expect(candidate!.packages).toEqual([pkg]);
      else expect(candidate!.packages).toBeUndefined();
      expect(candidate!.updatedAt).toBe(new Date(record.updatedAt).toISOString());
    }
    expect(result.candidates.filter((c) => c.packages).length).toBeGreaterThan(10);

    const state = JSON.parse(readFileSync(join(stateDir, 'registry-state.json'), 'utf8')) as { highWaterMark: string };
    const newest = records.map((r) => r.updatedAt).sort((a, b) => Date.parse(b) - Date.parse(a))[0]!;
    expect(Date.parse(state.highWaterMark)).toBe(Date.parse(newest));

    const again = await collectMcpRegistry(entry, context(stateDir));
    expect(again).toMatchObject({ status: 'ok', absenceIsRemoval: false });
    expect(again.stats.requests).toBe(1);
    // updated_since is inclusive here: only the newest listing(s) come back.
    expect(again.candidates.length).toBeGreaterThan(0);
    expect(again.candidates.length).toBeLessThan(5);
  });
});
