// Guarantees listings that moved (a renamed repository: the record's movedTo, from catalog collect) and archived
// repositories (archived: true) are marked in the API, and that a moved listing ranks right below its live successor
// in every order where its own figures would put it above, search included; and that search does not lift an archived
// listing above a live one on the stars of the repository it left.
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { INDEX_STAGE, runBuild } from '../../build/build-pipeline.ts';
import type { Listing, ListingRecord } from '../../src/domain/schemas.ts';
import { sampleRecords, tempDir, writeExport } from '../support/fixtures.ts';
import { json, startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';

let server: TestServer;
const base = sampleRecords(30).filter((r) => r.type === 'mcp');
const top = Math.max(...base.map((r) => r.stars));
/** One MCP server listed twice: under its old repository with more stars, and under the one it moved to. */
const twin = (repo: string, slug: string, stars: number, extra: Partial<ListingRecord>): ListingRecord => ({
  ...base[0]!,
  id: `mcp:${repo}#${slug}`,
  repo,
  slug,
  name: 'Relocated Widget Server',
  stars,
  metrics: { ...base[0]!.metrics, stars: 'real' },
  ...extra,
});
const moved = twin('acme/widget-old', 'widget-old', top + 1000, { movedTo: 'acme/widget' });
const successor = twin('acme/widget', 'widget', top + 10, {});
const frozen = twin('acme/frozen', 'frozen-widget', 5, { name: 'Frozen Widget Server', archived: true });
/** A server that left a monorepo for "<repo>-archived" (its twin there), and its vendor's own live server. */
const monorepoCopy = twin('acme/servers', 'gadget-mcp', top + 5000, { name: 'Gadget', description: 'Gadget integration for tracking gadgets' });
const archivedTwin = twin('acme/servers-archived', 'acme-gadget', 40, { name: 'Gadget', description: 'Gadget integration.' });
const vendor = twin('gadgetco/gadget-mcp', 'gadgetco-gadget', 300, { name: 'Gadget', description: 'Official MCP server for Gadget.' });

beforeAll(async () => {
  const dir = tempDir('catalog-moved-');
  const exportPath = writeExport(join(dir, 'export'), [...base.slice(1), moved, successor, frozen, monorepoCopy, archivedTwin, vendor]);
  const { buildDir } = await runBuild({ dataDir: join(dir, 'data'), exportPath, baseUrl: TEST_BASE_URL, quiet: true, stages: [INDEX_STAGE] });
  server = await startInProcess({}, { buildDir });
}, 120_000);
afterAll(() => server?.close());

const ids = async (query: string) => (await json<{ items: Listing[] }>(await server.fetch(`/api/v1/listings?${query}`))).items.map((l) => l.id);

describe('moved and archived listings', () => {
  it('are marked with what the record says', async () => {
    expect((await json<Listing>(await server.fetch('/api/v1/listings/widget-old'))).archived).toBe('moved to acme/widget');
    expect((await json<Listing>(await server.fetch('/api/v1/listings/frozen-widget'))).archived).toBe('its repository, acme/frozen, is archived');
    expect((await json<Listing>(await server.fetch('/api/v1/listings/widget'))).archived).toBeUndefined();
  });

  it.each(['sort=stars&type=mcp', 'sort=installs&type=mcp', 'type=mcp', 'q=relocated%20widget', 'q=widget&type=mcp'])(
    '%s: the moved listing comes right below its successor',
    async (query) => {
      const order = await ids(`${query}&limit=100`);
      expect(order).toContain(moved.id);
      expect(order.indexOf(successor.id)).toBeGreaterThanOrEqual(0);
      expect(order.indexOf(moved.id)).toBeGreaterThan(order.indexOf(successor.id));
    },
  );

  it('search puts the live vendor server before the archived monorepo copy with many times its stars', async () => {
    expect((await json<Listing>(await server.fetch('/api/v1/listings/gadget-mcp'))).archived).toBe('moved to acme/servers-archived');
    const order = await ids('q=gadget&type=mcp&limit=10');
    expect(order[0]).toBe(vendor.id);
    expect(order).toContain(monorepoCopy.id);
    // sort=stars still ranks by the figure (documented): the copy's stars are real, only relevance discounts them.
    expect((await ids('q=gadget&type=mcp&sort=stars&limit=10'))[0]).toBe(monorepoCopy.id);
  });

  it('under sort=stars the moved listing, with more stars than any other, is not first: its successor is, and it follows', async () => {
    const gadgets = new Set([monorepoCopy.id, archivedTwin.id, vendor.id]);
    const order = (await ids('sort=stars&type=mcp&limit=4')).filter((id) => !gadgets.has(id));
    expect(order.slice(0, 2)).toEqual([successor.id, moved.id]);
  });
});
