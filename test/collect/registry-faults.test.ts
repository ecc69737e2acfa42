// Guarantees the mcp-registry source against a registry that misbehaves: 429 with Retry-After and 500s are
// retried, persistent 500s, timeouts, truncated JSON and a cursor that loops fail the source (saying which page)
// without moving its high-water mark; incremental pages bring deletions and deprecations; records of every
// schema generation (snake_case, version_detail, empty $schema, no _meta, duplicate packages) are read; one row
// per server (isLatest, else the newest).
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import { collectMcpRegistry, OFFICIAL_META_KEY } from '../../build/collect/sources/mcp-registry.ts';
import { McpRegistrySourceSchema } from '../../build/collect/sources-file.ts';
import type { SourceContext } from '../../build/collect/types.ts';
import { sequence, startScriptServer, type Reply, type Script, type ScriptServer } from './support/script-server.ts';

const root = mkdtempSync(join(tmpdir(), 'catalog-registry-faults-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));
let server: ScriptServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

// Generous per-request time, so that a loaded machine does not turn a slow answer into a retry; the test of an
// answer that never comes shortens it.
const TUNING = { minDelayMs: 1, maxDelayMs: 4, maxWaitMs: 2000, timeoutMs: 10_000 };
const context = (): SourceContext => ({ stateDir: mkdtempSync(join(root, 'state-')), now: new Date('2026-11-27T00:00:00Z'), log: () => {}, env: {} });
const entryFor = (url: string, extra: Record<string, unknown> = {}) =>
  McpRegistrySourceSchema.parse({ kind: 'mcp-registry', url, delayMs: 0, retries: 2, ...extra });
const statePath = (ctx: SourceContext) => join(ctx.stateDir, 'registry-state.json');

/** A row of the current list shape. */
function row(name: string, options: { status?: string; isLatest?: boolean; updatedAt?: string; version?: string; repo?: string } = {}) {
  return {
    server: {
      $schema: 'https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json',
      name,
      description: `The ${name} server`,
      version: options.version ?? '1.0.0',
      repository: { url: `https://github.com/${options.repo ?? `acme/${name.split('/')[1]}`}`, source: 'github' },
      packages: [{ registryType: 'npm', identifier: `@acme/${name.split('/')[1]}`, version: options.version ?? '1.0.0', transport: { type: 'stdio' } }],
    },
    _meta: {
      [OFFICIAL_META_KEY]: {
        status: options.status ?? 'active',
        publishedAt: '2026-01-01T00:00:00Z',
        updatedAt: options.updatedAt ?? '2026-10-01T00:00:00Z',
        isLatest: options.isLatest ?? true,
      },
    },
  };
}
const page = (rows: unknown[], nextCursor?: string): Reply => ({
  body: { servers: rows, metadata: { count: rows.length, ...(nextCursor ? { nextCursor } : {}) } },
});

async function run(script: Script, ctx = context(), extra: Record<string, unknown> = {}, tuning = TUNING) {
  server = await startScriptServer(script);
  const result = await collectMcpRegistry(entryFor(server.origin, extra), ctx, tuning);
  return { result, ctx, requests: server.requests };
}

describe('retries and limits', () => {
  it('waits out a 429 with Retry-After, then reads the page', async () => {
    const { result, requests } = await run(sequence([{ status: 429, headers: { 'retry-after': '1' } }, page([row('io.github.acme/one')])]));
    expect(result.status).toBe('ok');
    expect(result.candidates.map((c) => c.registryName)).toEqual(['io.github.acme/one']);
    expect(result.stats).toMatchObject({ requests: 2, rateLimitWaits: 1 });
    expect(requests.map((r) => new URL(r.url, 'http://x').searchParams.get('limit'))).toEqual(['100', '100']);
  });

  it('retries 500s and goes on', async () => {
    const { result } = await run(sequence([{ status: 500 }, { status: 500 }, page([row('io.github.acme/one')])]));
    expect(result.status).toBe('ok');
    expect(result.stats.requests).toBe(3);
  });

  it('fails on persistent 500s, naming the page, and keeps no state', async () => {
    const script: Script = (request) =>
      new URL(request.url, 'http://x').searchParams.get('cursor') ? { status: 500 } : page([row('io.github.acme/one')], 'c1');
    const { result, ctx } = await run(script);
    expect(result).toMatchObject({ status: 'failed', candidates: [], removed: [], absenceIsRemoval: false });
    expect(result.error).toMatch(/^page 2 .*answered 500 \(after 3 attempts\)/);
    expect(existsSync(statePath(ctx))).toBe(false);
  });

  it('fails on an answer that never comes', async () => {
    const { result } = await run(sequence([{ hang: true }]), context(), {}, { ...TUNING, timeoutMs: 200 });
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^page 1 .*no complete answer in 200 ms/);
  });

  it('fails on truncated JSON', async () => {
    const text = JSON.stringify(page([row('io.github.acme/one'), row('io.github.acme/two')]).body);
    const { result } = await run(sequence([{ body: text.slice(0, text.length - 40) }]));
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^page 1 .*not complete JSON/);
  });

  it('stops a cursor that loops', async () => {
    const next: Record<string, string> = { '': 'a', a: 'b', b: 'a' };
    const script: Script = (request) => {
      const cursor = new URL(request.url, 'http://x').searchParams.get('cursor') ?? '';
      return page([row(`io.github.acme/s-${cursor || 'first'}`)], next[cursor]);
    };
    const { result, requests } = await run(script);
    expect(result.status).toBe('failed');
    expect(result.error).toMatch(/^page 3 .*cursor "a" came back a second time/);
    expect(requests).toHaveLength(3);
  });

  it('fails a full read that lists no servers at all, rather than remove every listing', async () => {
    const { result, ctx } = await run(sequence([page([])]));
    expect(result).toMatchObject({ status: 'failed', absenceIsRemoval: false });
    expect(result.error).toMatch(/listed no servers at all/);
    expect(existsSync(statePath(ctx))).toBe(false);
  });

  it('stops at maxPages with more to read', async () => {
    let n = 0;
    const { result } = await run(() => page([row(`io.github.acme/s${n}`)], `c${++n}`), context(), { maxPages: 3 });
    expect(result).toMatchObject({ status: 'failed', error: 'stopped after 3 pages (maxPages) with more to read' });
  });
});

describe('incremental sync', () => {
  /** One registry for several runs (the state belongs to its URL); `answer` is what the next run gets. */
  async function registry() {
    const state: { answer: Script } = { answer: sequence([page([])]) };
    server = await startScriptServer((request, info) => state.answer(request, info));
    const entry = entryFor(server.origin);
    const ctx = context();
    return {
      requests: server.requests,
      ctx,
      run: (answer: Script) => {
        state.answer = answer;
        return collectMcpRegistry(entry, ctx, TUNING);
      },
    };
  }

  it('backfills, then asks for changes since the highest updatedAt, with deletions and deprecations', async () => {
    const { run: collect, requests, ctx } = await registry();
    const first = await collect(
      sequence([
        page([row('io.github.acme/one', { updatedAt: '2026-10-01T00:00:00Z' })], 'next'),
        page([row('io.github.acme/two', { updatedAt: '2026-10-05T08:00:00.123456Z' })]),
      ]),
    );
    expect(first).toMatchObject({ status: 'ok', absenceIsRemoval: true });
    expect(first.candidates).toHaveLength(2);
    expect(requests[1]!.url).toContain('cursor=next');
    expect(JSON.parse(readFileSync(statePath(ctx), 'utf8'))).toMatchObject({ highWaterMark: '2026-10-05T08:00:00.123456Z' });

    const second = await collect(
      sequence([
        page([
          row('io.github.acme/one', { status: 'deleted', updatedAt: '2026-11-02T00:00:00Z' }),
          row('io.github.acme/two', { status: 'deprecated', updatedAt: '2026-11-01T00:00:00Z' }),
          row('io.github.acme/three', { updatedAt: '2026-11-03T00:00:00Z' }),
        ]),
      ]),
    );
    const params = new URL(requests[2]!.url, 'http://x').searchParams;
    expect(params.get('updated_since')).toBe('2026-10-05T08:00:00.123456Z');
    expect(params.has('include_deleted')).toBe(false);
    expect(second).toMatchObject({ status: 'ok', absenceIsRemoval: false });
    expect(second.removed.map((c) => [c.registryName, c.repo])).toEqual([['io.github.acme/one', 'acme/one']]);
    expect(second.candidates.map((c) => [c.registryName, c.status])).toEqual([
      ['io.github.acme/three', 'active'],
      ['io.github.acme/two', 'deprecated'],
    ]);
    expect(JSON.parse(readFileSync(statePath(ctx), 'utf8'))).toMatchObject({ highWaterMark: '2026-11-03T00:00:00Z' });

    // Nothing new: an empty page, and the mark stays where the registry put it (not the local clock).
    const third = await collect(sequence([page([])]));
    expect(third).toMatchObject({ status: 'ok', candidates: [], removed: [], absenceIsRemoval: false });
    expect(new URL(requests[3]!.url, 'http://x').searchParams.get('updated_since')).toBe('2026-11-03T00:00:00Z');
    expect(JSON.parse(readFileSync(statePath(ctx), 'utf8'))).toMatchObject({ highWaterMark: '2026-11-03T00:00:00Z' });
  });

  it('a failed incremental run leaves the mark where it was', async () => {
    const { run: collect, ctx } = await registry();
    await collect(sequence([page([row('io.github.acme/one', { updatedAt: '2026-10-01T00:00:00Z' })])]));
    const failed = await collect(sequence([page([row('io.github.acme/two', { updatedAt: '2026-11-01T00:00:00Z' })], 'more'), { status: 503 }]));
    expect(failed.status).toBe('failed');
    expect(JSON.parse(readFileSync(statePath(ctx), 'utf8'))).toMatchObject({ highWaterMark: '2026-10-01T00:00:00Z' });
  });

  it('another registry URL starts over with a full backfill', async () => {
    const { run: collect, ctx } = await registry();
    await collect(sequence([page([row('io.github.acme/one', { updatedAt: '2026-10-01T00:00:00Z' })])]));
    await server!.close();
    server = await startScriptServer(sequence([page([row('io.github.acme/one')])]));
    const other = await collectMcpRegistry(entryFor(server.origin), ctx, TUNING);
    expect(other.absenceIsRemoval).toBe(true);
    expect(server.requests[0]!.url).not.toContain('updated_since');
  });
});

describe('records of every schema generation', () => {
  it('reads snake_case, version_detail, an empty $schema, no _meta, next_cursor, and drops duplicate packages', async () => {
    const old = {
      $schema: '',
      name: 'io.github.legacy/old-server',
      description: 'A 2025-07 record',
      repository: { url: 'https://github.com/Legacy/Old-Server.git', source: 'github', subfolder: './servers/old' },
      version_detail: { version: '0.3.0', release_date: '2025-07-01T00:00:00Z', is_latest: true },
      website_url: 'https://legacy.example',
      packages: [
        {
          registry_type: 'pypi',
          registry_base_url: 'https://pypi.org',
          identifier: 'old-server',
          version: '0.3.0',
          runtime_hint: 'uvx',
          transport: { type: 'stdio' },
          package_arguments: [{ type: 'positional', value_hint: 'path', is_required: true }],
          environment_variables: [{ name: 'OLD_TOKEN', description: 'token', is_required: true, is_secret: true }, { description: 'an input without a name' }],
        },
        { registry_type: 'pypi', identifier: 'old-server', version: '0.3.0', transport: { type: 'stdio' } },
        { registry_type: 'pypi', identifier: 'old-server', version: '0.3.0', transport: { type: 'sse', url: 'http://localhost:8000/sse' } },
        { registry_type: 'npm' },
      ],
      remotes: [
        { transport_type: 'sse', url: 'https://old.example/sse' },
        { type: 'sse', url: 'https://old.example/sse' },
      ],
    };
    const noRepo = {
      server: {
        name: 'com.example/hosted',
        description: 'Hosted only',
        version: '1.0.0',
        remotes: [{ type: 'streamable-http', url: 'https://mcp.example.com' }],
      },
    };
    const { result } = await run(
      sequence([{ body: { servers: [old], next_cursor: 'p2' } }, { body: { servers: [noRepo, row('io.github.acme/new')], metadata: { next_cursor: '' } } }]),
    );
    expect(result.status).toBe('ok');
    const legacy = result.candidates.find((c) => c.registryName === 'io.github.legacy/old-server')!;
    expect(legacy).toEqual({
      type: 'mcp',
      name: 'old-server',
      description: 'A 2025-07 record',
      repo: 'Legacy/Old-Server',
      path: 'servers/old',
      registryName: 'io.github.legacy/old-server',
      homepage: 'https://legacy.example',
      version: '0.3.0',
      status: 'active',
      packages: [
        {
          registryType: 'pypi',
          registryBaseUrl: 'https://pypi.org',
          identifier: 'old-server',
          version: '0.3.0',
          runtimeHint: 'uvx',
          transport: { type: 'stdio' },
          packageArguments: [{ type: 'positional', valueHint: 'path', isRequired: true }],
          environmentVariables: [{ name: 'OLD_TOKEN', description: 'token', isRequired: true, isSecret: true }],
        },
        { registryType: 'pypi', identifier: 'old-server', version: '0.3.0', transport: { type: 'sse', url: 'http://localhost:8000/sse' } },
      ],
      remotes: [{ type: 'sse', url: 'https://old.example/sse' }],
    });
    expect(result.candidates.map((c) => c.registryName)).toEqual(['io.github.acme/new', 'io.github.legacy/old-server']);
    expect(result.stats.warnings).toEqual([
      { where: 'io.github.legacy/old-server', message: expect.stringMatching(/^package \?: .*; left out$/) },
      { where: 'com.example/hosted', message: 'no GitHub repository (none stated): a listing needs one; skipped' },
    ]);
  });

  it('keeps one row per server: isLatest, else the newest', async () => {
    const { result } = await run(
      sequence([
        page(
          [
            row('io.github.acme/multi', { version: '2.0.0', isLatest: true, updatedAt: '2026-09-01T00:00:00Z' }),
            row('io.github.acme/multi', { version: '1.0.0', isLatest: false, updatedAt: '2026-10-01T00:00:00Z' }),
          ],
          'p2',
        ),
        page([
          row('io.github.acme/multi', { version: '1.5.0', isLatest: false, updatedAt: '2026-09-15T00:00:00Z' }),
          {
            ...row('io.github.acme/nolatest', { version: '1.0.0', updatedAt: '2026-01-01T00:00:00Z' }),
            _meta: { [OFFICIAL_META_KEY]: { updatedAt: '2026-01-01T00:00:00Z' } },
          },
          { ...row('io.github.acme/nolatest', { version: '1.1.0' }), _meta: { [OFFICIAL_META_KEY]: { updatedAt: '2026-02-01T00:00:00Z' } } },
          { ...row('io.github.acme/nolatest', { version: '0.9.0' }), _meta: { [OFFICIAL_META_KEY]: { updatedAt: '2025-12-01T00:00:00Z' } } },
        ]),
      ]),
    );
    expect(result.candidates.map((c) => [c.registryName, c.version])).toEqual([
      ['io.github.acme/multi', '2.0.0'],
      ['io.github.acme/nolatest', '1.1.0'],
    ]);
  });
});
