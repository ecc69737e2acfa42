// Guarantees: build/scale/generate-catalog.ts is byte-deterministic per (count, seed), every record passes the
// snapshot rules of validate_catalog.py and is labelled synthetic, ids/slugs are unique, the type mix, empty
// descriptions, categories, installs tail, owner tail and late spurts follow the snapshot, and it streams to a file.
import { describe, it, expect, beforeAll } from 'vitest';
import { createHash } from 'node:crypto';
import { createReadStream, readFileSync, rmSync, mkdtempSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { Writable } from 'node:stream';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { generateCatalog, defaultSnapshotPath } from '../../build/scale/generate-catalog.ts';

const TYPES = ['skill', 'mcp', 'marketplace', 'plugin', 'workflow'];
const REQ = [
  'id',
  'slug',
  'type',
  'name',
  'description',
  'repo',
  'author',
  'category',
  'tags',
  'installs',
  'stars',
  'metricsSource',
  'installsHistory',
  'updatedAt',
  'source',
];
const SLUG_RE = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const REPO_RE = /^[A-Za-z0-9][A-Za-z0-9_.-]*\/[A-Za-z0-9_.-]+$/;
const CATEGORY_RE = /^[a-z0-9-]+$/;
const ISO_RE = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;
const MCP_CMD_RE = /^(npx -y|uvx|docker run -i --rm|pip install|npm install -g) \S+$/;
const SEED = 1;

// Generated records are checked field by field against loose expectations: any keeps those checks short.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Rec = Record<string, any>;

async function generateToMemory(count: number, seed: number): Promise<{ text: string; res: Awaited<ReturnType<typeof generateCatalog>> }> {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk, _enc, cb) {
      chunks.push(Buffer.from(chunk));
      cb();
    },
  });
  const res = await generateCatalog({ count, seed, out: sink });
  return { text: Buffer.concat(chunks).toString('utf8'), res };
}

function parseLines(text: string): Rec[] {
  expect(text.endsWith('\n')).toBe(true);
  return text
    .slice(0, -1)
    .split('\n')
    .map((l) => JSON.parse(l));
}

/** The checks of validate_catalog.py, plus the synthetic labelling and text rules of the generator. */
function recordErrors(x: Rec, seed: number): string[] {
  const e: string[] = [];
  for (const k of REQ) if (!(k in x)) e.push(`missing ${k}`);
  const t = x.type;
  if (!TYPES.includes(t)) e.push(`bad type ${t}`);
  if (typeof x.slug !== 'string' || !SLUG_RE.test(x.slug)) e.push('bad slug');
  if (typeof x.id !== 'string' || x.id.length < 1 || x.id.length > 256) e.push('id length');
  if (typeof x.repo !== 'string' || !REPO_RE.test(x.repo)) e.push(`bad repo ${x.repo}`);
  if (x.id !== `${t}:${x.repo}#${x.slug}`) e.push('id not type:owner/repo#slug');
  const h = x.installsHistory;
  if (
    !Array.isArray(h) ||
    h.length !== 30 ||
    h[29] !== x.installs ||
    h.some((v: unknown) => !Number.isInteger(v) || (v as number) < 0) ||
    h.some((v: number, i: number) => i > 0 && v < h[i - 1])
  )
    e.push('bad installsHistory');
  if (!Number.isInteger(x.installs) || !Number.isInteger(x.stars) || x.installs < 0 || x.stars < 0) e.push('metrics not int');
  if (typeof x.category !== 'string' || !CATEGORY_RE.test(x.category)) e.push('category');
  if (!Array.isArray(x.tags) || x.tags.some((g: unknown) => typeof g !== 'string')) e.push('tags');
  if ('files' in x) e.push('files present');
  // synthetic, and says so
  if (x.metricsSource !== 'synthetic') e.push('metricsSource');
  const m = x.metrics ?? {};
  if (m.installs !== 'synthetic' || m.stars !== 'synthetic' || m.history !== 'synthetic') e.push('metrics provenance');
  if (x.source?.via !== 'generated' || x.source?.seed !== seed) e.push('source');
  // text
  if (typeof x.name !== 'string' || !x.name.trim()) e.push('empty name');
  const d = x.description;
  if (typeof d !== 'string' || d.length > 400) e.push('description length');
  else if (d && (d !== d.trim() || /\s{2,}|[\n\r`]|\]\(|<img|<\/?[a-z]+>/i.test(d) || /\s…$/.test(d))) e.push(`description not plain text: ${d}`);
  if (typeof x.author !== 'string' || !x.author) e.push('author');
  if (typeof x.updatedAt !== 'string' || !ISO_RE.test(x.updatedAt) || Number.isNaN(Date.parse(x.updatedAt))) e.push('updatedAt');
  if ('categories' in x) {
    const c = x.categories;
    if (!Array.isArray(c) || c.length < 2 || c[0] !== x.category || c.some((k: string) => !CATEGORY_RE.test(k)) || new Set(c).size !== c.length)
      e.push('categories');
  }
  // installCommand per type (snapshot README)
  const cmd = x.installCommand;
  if (t === 'skill' && cmd !== `npx skills add ${x.repo}`) e.push('skill installCommand');
  if (t === 'marketplace' && (cmd !== `/plugin marketplace add ${x.repo}` || !(x.pluginCount >= 1))) e.push('marketplace fields');
  if (t === 'plugin' && (typeof x.marketplace !== 'string' || cmd !== `/plugin install ${x.name}@${x.marketplace}`)) e.push('plugin installCommand');
  if (t === 'mcp' && cmd !== undefined && !MCP_CMD_RE.test(cmd)) e.push(`mcp installCommand ${cmd}`);
  if (t === 'workflow' && cmd !== undefined && !cmd.startsWith(`gh aw add ${x.repo}/`)) e.push('workflow installCommand');
  return e;
}

async function snapshotStats(): Promise<{ n: number; types: Map<string, number>; empty: number; multi: number }> {
  const file = defaultSnapshotPath();
  const raw = createReadStream(file);
  const rl = createInterface({ input: file.endsWith('.gz') ? raw.pipe(createGunzip()) : raw, crlfDelay: Infinity });
  const types = new Map<string, number>();
  let n = 0,
    empty = 0,
    multi = 0;
  for await (const line of rl) {
    if (!line.trim()) continue;
    const x = JSON.parse(line);
    n++;
    types.set(x.type, (types.get(x.type) ?? 0) + 1);
    if (!x.description) empty++;
    if (Array.isArray(x.categories) && x.categories.length > 1) multi++;
  }
  return { n, types, empty: empty / n, multi: multi / n };
}

describe('generate-catalog', () => {
  it('is deterministic: same (count, seed) → same bytes and sha256; another seed differs', { timeout: 120_000 }, async () => {
    const a = await generateToMemory(3000, 7);
    const b = await generateToMemory(3000, 7);
    const c = await generateToMemory(3000, 8);
    expect(a.res.count).toBe(3000);
    expect(a.res.sha256).toBe(b.res.sha256);
    expect(a.text).toBe(b.text);
    expect(c.res.sha256).not.toBe(a.res.sha256);
    expect(a.res.sha256).toBe(createHash('sha256').update(a.text, 'utf8').digest('hex'));
    expect(a.res.bytes).toBe(Buffer.byteLength(a.text, 'utf8'));
  });

  it('emits 2,000 records that all satisfy the snapshot record rules', { timeout: 120_000 }, async () => {
    const { text } = await generateToMemory(2000, SEED);
    const recs = parseLines(text);
    expect(recs).toHaveLength(2000);
    const ids = new Set<string>(),
      slugs = new Set<string>();
    const errors: string[] = [];
    recs.forEach((x, i) => {
      for (const err of recordErrors(x, SEED)) errors.push(`line ${i + 1}: ${err}`);
      if (ids.has(x.id)) errors.push(`line ${i + 1}: duplicate id`);
      if (slugs.has(x.slug)) errors.push(`line ${i + 1}: duplicate slug`);
      ids.add(x.id);
      slugs.add(x.slug);
    });
    expect(errors.slice(0, 20)).toEqual([]);
    // every type occurs, descriptions vary and some are empty
    expect(new Set(recs.map((r) => r.type)).size).toBeGreaterThanOrEqual(4);
    expect(new Set(recs.map((r) => r.description)).size).toBeGreaterThan(1500);
  });

  describe('at 30,000 records', () => {
    let recs: Rec[] = [];
    let snap: Awaited<ReturnType<typeof snapshotStats>>;
    beforeAll(async () => {
      snap = await snapshotStats();
      recs = parseLines((await generateToMemory(30_000, 3)).text);
    }, 120_000);

    it('keeps ids and slugs unique (clash rules exercised)', () => {
      expect(new Set(recs.map((r) => r.id)).size).toBe(recs.length);
      expect(new Set(recs.map((r) => r.slug)).size).toBe(recs.length);
      for (const r of recs) expect(SLUG_RE.test(r.slug) && r.id === `${r.type}:${r.repo}#${r.slug}`).toBe(true);
    });

    it('follows the snapshot type mix, empty-description share and multi-category share', () => {
      for (const t of TYPES) {
        const real = (snap.types.get(t) ?? 0) / snap.n;
        const gen = recs.filter((r) => r.type === t).length / recs.length;
        expect(Math.abs(gen - real), `type ${t}: ${gen} vs ${real}`).toBeLessThan(0.02);
      }
      const empty = recs.filter((r) => r.description === '').length / recs.length;
      expect(Math.abs(empty - snap.empty)).toBeLessThan(0.02);
      expect(empty).toBeGreaterThan(0.05);
      const multi = recs.filter((r) => Array.isArray(r.categories)).length / recs.length;
      expect(Math.abs(multi - snap.multi)).toBeLessThan(0.02);
    });

    it('has heavy-tailed installs and owners, and a few late spurts', () => {
      const installs = recs.map((r) => r.installs as number).sort((a, b) => b - a);
      const total = installs.reduce((s, v) => s + v, 0);
      const top1 = installs.slice(0, Math.floor(recs.length / 100)).reduce((s, v) => s + v, 0);
      expect(top1 / total).toBeGreaterThan(0.3);
      const owners = new Map<string, number>();
      for (const r of recs) {
        const o = r.repo.split('/')[0];
        owners.set(o, (owners.get(o) ?? 0) + 1);
      }
      const sizes = [...owners.values()].sort((a, b) => b - a);
      expect(sizes[0]).toBeGreaterThan(recs.length * 0.02); // a few owners with many listings
      expect(sizes.filter((s) => s === 1).length).toBeGreaterThan(owners.size * 0.4); // and a long tail
      let spurts = 0,
        eligible = 0;
      for (const r of recs) {
        const h = r.installsHistory as number[];
        const [first, week, last] = [h[0]!, h[22]!, h[29]!];
        if (last < 50) continue;
        eligible++;
        const late = last - week,
          early = week - first;
        if (late > 3 * ((early / 22) * 7)) spurts++;
      }
      expect(spurts / eligible).toBeGreaterThan(0.02);
      expect(spurts / eligible).toBeLessThan(0.12);
      const desc = recs.filter((r) => r.description).map((r) => r.description.length);
      expect(Math.max(...desc)).toBeLessThanOrEqual(400);
      expect(desc.filter((l) => l < 80).length).toBeGreaterThan(desc.length * 0.1); // length spread, not one size
      expect(desc.filter((l) => l > 250).length).toBeGreaterThan(desc.length * 0.05);
    });
  });

  it('streams to a file path with the same bytes as to a stream', { timeout: 120_000 }, async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'gen-catalog-'));
    const file = path.join(dir, 'catalog.jsonl');
    try {
      const res = await generateCatalog({ count: 5000, seed: 11, out: file });
      const buf = readFileSync(file);
      expect(res).toEqual({ count: 5000, bytes: buf.length, sha256: createHash('sha256').update(buf).digest('hex') });
      expect(buf.toString('utf8').split('\n').length - 1).toBe(5000);
      const mem = await generateToMemory(5000, 11);
      expect(mem.res.sha256).toBe(res.sha256);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('handles count 0 and rejects bad arguments', async () => {
    const { text, res } = await generateToMemory(0, 1);
    expect(text).toBe('');
    expect(res.count).toBe(0);
    await expect(generateCatalog({ count: -1, out: new Writable({ write: (_c, _e, cb) => cb() }) })).rejects.toThrow();
    await expect(generateCatalog({ count: 1, seed: 1.5, out: new Writable({ write: (_c, _e, cb) => cb() }) })).rejects.toThrow();
  });
});
