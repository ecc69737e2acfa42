// What the registry read API (server/routes/registry-routes.ts) knows of the snapshot's MCP listings beyond the
// search engine: which documents are MCP servers, and each one's update time and version.
import { serverVersion } from '../../src/domain/agents/registry-mapping.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import { snapshotResource, type Snapshot } from '../catalog/snapshot.ts';

/** Per snapshot: every MCP listing's update time and version, for the filters the search engine lacks. */
export interface McpTable {
  updatedMs: Map<number, number>;
  version: Map<number, string>;
}

export const MCP_TABLE = snapshotResource('registry-mcp-table', (snapshot): McpTable => {
  const docs = snapshot.engine.search({ types: ['mcp'], offset: 0, limit: snapshot.store.count }).docs;
  const table: McpTable = { updatedMs: new Map(), version: new Map() };
  const texts = snapshot.store.readJson(docs);
  texts.forEach((text, i) => {
    const listing = JSON.parse(text) as Pick<Listing, 'updatedAt' | 'version'>;
    table.updatedMs.set(docs[i]!, Date.parse(listing.updatedAt));
    table.version.set(docs[i]!, serverVersion(listing));
  });
  return table;
});

export function isMcp(snapshot: Snapshot, doc: number): boolean {
  return snapshot.store.idOf(doc).startsWith('mcp:');
}
