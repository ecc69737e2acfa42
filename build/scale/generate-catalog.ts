// Deterministic generator of large synthetic catalogs (JSON Lines, snapshot export format) whose
// distributions are derived from the embedded real snapshot. Same (count, seed, snapshot) → same bytes.
// Streaming: records are produced one at a time and written in chunks; memory stays bounded
// (the model built from the snapshot + a compact hash set of slugs, 8 bytes per slot).
import { createReadStream, createWriteStream, existsSync, openSync, readSync, closeSync, statSync } from 'node:fs';
import { createGunzip } from 'node:zlib';
import { createInterface } from 'node:readline';
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import path from 'node:path';

export interface GenerateOptions {
  count: number;
  seed?: number;
  snapshotPath?: string;
  /** A file path, or a writable stream (left open: the caller ends it). */
  out: NodeJS.WritableStream | string;
}

export interface GenerateResult {
  count: number;
  bytes: number;
  sha256: string;
}

const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const SHARED_SNAPSHOT = '/work/shared/catalog/listings.jsonl';
const TYPES = ['skill', 'mcp', 'marketplace', 'plugin', 'workflow'] as const;
type ListingType = (typeof TYPES)[number];
const DESC_MAX = 400;
const HISTORY_DAYS = 30;

/** The project's embedded copy (data/listings.jsonl or .jsonl.gz), else the shared snapshot. */
export function defaultSnapshotPath(): string {
  for (const p of [path.join(REPO_ROOT, 'data', 'listings.jsonl'), path.join(REPO_ROOT, 'data', 'listings.jsonl.gz')]) {
    if (existsSync(p)) return p;
  }
  return SHARED_SNAPSHOT;
}

// ---------------------------------------------------------------------------
// PRNG: sfc32 seeded through splitmix32. No Math.random anywhere.
// ---------------------------------------------------------------------------
function splitmix32(x: number): number {
  x = (x + 0x9e3779b9) | 0;
  let z = x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  return (z ^ (z >>> 16)) >>> 0;
}

/** Mixes a few integers into one 32-bit seed. */
function mix(...xs: number[]): number {
  let h = 0x2545f491;
  for (const x of xs) h = splitmix32((h ^ (x >>> 0)) + Math.imul(h, 31));
  return h;
}

class Rng {
  a = 0;
  b = 0;
  c = 0;
  d = 0;
  constructor(seed: number) {
    this.reseed(seed);
  }
  reseed(seed: number): this {
    this.a = splitmix32(seed);
    this.b = splitmix32(this.a ^ 0x6a09e667);
    this.c = splitmix32(this.b ^ 0xbb67ae85);
    this.d = 1;
    for (let i = 0; i < 12; i++) this.u32();
    return this;
  }
  u32(): number {
    const a = this.a,
      b = this.b,
      c = this.c,
      d = this.d;
    const t = (((a + b) | 0) + d) | 0;
    this.d = (d + 1) | 0;
    this.a = b ^ (b >>> 9);
    this.b = (c + (c << 3)) | 0;
    const r = (c << 21) | (c >>> 11);
    this.c = (r + t) | 0;
    return t >>> 0;
  }
  /** [0, 1) */
  float(): number {
    return this.u32() / 4294967296;
  }
  /** integer in [0, n) */
  int(n: number): number {
    return Math.floor(this.float() * n);
  }
  uniform(lo: number, hi: number): number {
    return lo + (hi - lo) * this.float();
  }
  normal(): number {
    const u = 1 - this.float();
    const v = this.float();
    return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
  }
  pick<T>(xs: readonly T[]): T {
    return xs[this.int(xs.length)]!;
  }
}

// ---------------------------------------------------------------------------
// Markov chains over token ids, stored as one sorted Float64Array of
// (context, next) composites: compact and fast (binary search per step).
// ---------------------------------------------------------------------------
const BOS = 0;
const EOS = 1;

class Chain {
  order: number;
  words: string[];
  V: number;
  ctxMod: number; // V^(order-1): context key = last `order` token ids in base V (BOS = 0 pads the start)
  keys: Float64Array; // sorted composites context * V + next
  constructor(order: number, docs: readonly string[][]) {
    this.order = order;
    const ids = new Map<string, number>();
    this.words = ['', ''];
    const seqs: number[][] = [];
    for (const doc of docs) {
      if (doc.length === 0) continue;
      const s: number[] = [];
      for (const w of doc) {
        let id = ids.get(w);
        if (id === undefined) {
          id = this.words.length;
          ids.set(w, id);
          this.words.push(w);
        }
        s.push(id);
      }
      seqs.push(s);
    }
    const V = (this.V = this.words.length);
    if (V ** (order + 1) >= 2 ** 53) throw new Error(`chain vocabulary too large for order ${order}`);
    this.ctxMod = V ** (order - 1);
    let n = 0;
    for (const s of seqs) n += s.length + 1;
    const keys = new Float64Array(n);
    let k = 0;
    for (const s of seqs) {
      let ctx = 0;
      for (let i = 0; i <= s.length; i++) {
        const c = i < s.length ? s[i]! : EOS;
        keys[k++] = ctx * V + c;
        ctx = this.advance(ctx, c);
      }
    }
    keys.sort();
    this.keys = keys;
  }
  get empty(): boolean {
    return this.keys.length === 0;
  }
  advance(ctx: number, c: number): number {
    return (ctx % this.ctxMod) * this.V + c;
  }
  private lowerBound(x: number): number {
    const keys = this.keys;
    let lo = 0,
      hi = keys.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (keys[mid]! < x) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }
  /** A random successor of context `ctx` (0 = start of a document), weighted by corpus frequency; EOS if none. */
  next(ctx: number, rng: Rng): number {
    const base = ctx * this.V;
    const lo = this.lowerBound(base);
    const hi = this.lowerBound(base + this.V);
    if (lo >= hi) return EOS;
    return this.keys[lo + rng.int(hi - lo)]! - base;
  }
}

// ---------------------------------------------------------------------------
// Model derived from the snapshot
// ---------------------------------------------------------------------------
const NAME_STYLES = ['kebab', 'single', 'snake', 'space', 'dot'] as const;
const MCP_CMD_KINDS = ['', 'npx', 'npx-scoped', 'uvx', 'docker', 'pip', 'npm'] as const;

interface Model {
  n: number; // number of templates (real listings)
  type: Uint8Array;
  cat: Uint8Array;
  extraCats: (Uint8Array | null)[];
  descLen: Uint16Array;
  nameStyle: Uint8Array;
  nameTokens: Uint8Array;
  nameIsRepo: Uint8Array;
  repoId: Int32Array;
  installs: Float64Array;
  stars: Float64Array;
  shape: Float32Array; // HISTORY_DAYS per template; NaN first element when no usable shape
  updatedAt: Float64Array; // epoch ms
  tagCount: Uint8Array;
  tagsSorted: Uint8Array;
  workflowTags: (string[] | null)[];
  cmdKind: Uint8Array; // mcp: index in MCP_CMD_KINDS; workflow: 1 = gh aw (2 = with workflows/ path)
  authorDiffers: Uint8Array;
  pluginCount: Int32Array;
  version: (string | null)[];
  marketKind: Uint8Array; // plugins: 0 repo name, 1 owner-repo, 2 owner-lastword
  minUpdated: number;
  maxUpdated: number;
  categories: string[];
  // repositories / owners
  repoOwner: Int32Array;
  repoStyle: Uint8Array; // bit0..1 sep (0 '-',1 '_',2 '.',3 none), bit2 capitalised
  repoTokens: Uint8Array;
  repoType: Uint8Array;
  ownerLen: Uint8Array;
  ownerStyle: Uint8Array; // bit0 hyphen, bit1 capitalised, bit2 digits
  realOwners: Set<string>; // lower-cased: generated handles never reuse a real one
  // text models
  descChain: Map<string, Chain>; // key `${type}|${cat}` or `*|${cat}`
  nameChain: Map<string, Chain>;
  ownerChain: Chain; // characters
  repoChain: Chain[]; // per type (falls back to global for small types)
  tagPool: Map<string, string[]>; // `${type}|${cat}` and `${type}|*`
}

function nameStyleOf(name: string): number {
  if (name.includes(' ')) return 3;
  if (name.includes('-')) return 0;
  if (name.includes('_')) return 2;
  if (name.includes('.')) return 4;
  return 1;
}

function nameTokensOf(name: string): string[] {
  return name
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter((t) => t.length > 0 && t.length <= 24);
}

function descTokensOf(desc: string): string[] {
  let d = desc.trim();
  let truncated = false;
  if (d.endsWith('…')) {
    d = d.slice(0, -1);
    truncated = true;
  }
  const toks = d.split(/\s+/).filter((t) => t.length > 0);
  if (truncated) toks.pop(); // possibly a partial last word
  return toks;
}

function isSorted(xs: readonly string[]): boolean {
  for (let i = 1; i < xs.length; i++) if (xs[i - 1]! > xs[i]!) return false;
  return true;
}

async function* readLines(file: string): AsyncGenerator<string> {
  let gz = file.endsWith('.gz');
  if (!gz) {
    const fd = openSync(file, 'r');
    const head = Buffer.alloc(2);
    readSync(fd, head, 0, 2, 0);
    closeSync(fd);
    gz = head[0] === 0x1f && head[1] === 0x8b;
  }
  const raw = createReadStream(file);
  const input = gz ? raw.pipe(createGunzip()) : raw;
  const rl = createInterface({ input, crlfDelay: Infinity });
  for await (const line of rl) if (line.trim()) yield line;
}

const modelCache = new Map<string, Promise<Model>>();

function loadModel(file: string): Promise<Model> {
  const st = statSync(file);
  const key = `${path.resolve(file)}|${st.size}|${st.mtimeMs}`;
  let m = modelCache.get(key);
  if (!m) {
    m = buildModel(file);
    modelCache.set(key, m);
    m.catch(() => modelCache.delete(key));
  }
  return m;
}

async function buildModel(file: string): Promise<Model> {
  const typeIdx = new Map<string, number>(TYPES.map((t, i) => [t, i]));
  const catIdx = new Map<string, number>();
  const categories: string[] = [];
  const catOf = (c: string): number => {
    let i = catIdx.get(c);
    if (i === undefined) {
      i = categories.length;
      categories.push(c);
      catIdx.set(c, i);
    }
    return i;
  };
  const ownerIdx = new Map<string, number>();
  const repoIdx = new Map<string, number>();
  const repoOwner: number[] = [],
    repoStyle: number[] = [],
    repoTokens: number[] = [],
    repoType: number[] = [];
  const ownerLen: number[] = [],
    ownerStyle: number[] = [];
  const ownerDocs: string[][] = [];
  const repoDocs: string[][][] = TYPES.map(() => []);

  const type: number[] = [],
    cat: number[] = [],
    descLen: number[] = [],
    nameStyle: number[] = [];
  const nameTokens: number[] = [],
    nameIsRepo: number[] = [],
    repoId: number[] = [];
  const installs: number[] = [],
    stars: number[] = [],
    updatedAt: number[] = [];
  const tagCount: number[] = [],
    tagsSorted: number[] = [],
    cmdKind: number[] = [],
    authorDiffers: number[] = [];
  const pluginCount: number[] = [],
    marketKind: number[] = [];
  const extraCats: (Uint8Array | null)[] = [],
    workflowTags: (string[] | null)[] = [],
    version: (string | null)[] = [];
  const shapes: number[] = [];
  const descDocs = new Map<string, string[][]>();
  const nameDocs = new Map<string, string[][]>();
  const tagPool = new Map<string, string[]>();
  const push = <T>(m: Map<string, T[]>, k: string, v: T): void => {
    let a = m.get(k);
    if (!a) m.set(k, (a = []));
    a.push(v);
  };

  for await (const line of readLines(file)) {
    const x = JSON.parse(line);
    const t = typeIdx.get(x.type);
    if (t === undefined || typeof x.repo !== 'string' || !x.repo.includes('/')) continue;
    const [owner, repo] = x.repo.split('/');
    let o = ownerIdx.get(owner);
    if (o === undefined) {
      o = ownerLen.length;
      ownerIdx.set(owner, o);
      const parts = owner
        .toLowerCase()
        .split(/[^a-z0-9]+/)
        .filter(Boolean);
      const letters = parts.map((p: string) => p.replace(/[0-9]+/g, '')).filter((p: string) => p.length >= 2);
      for (const p of letters) ownerDocs.push([...p]);
      ownerLen.push(Math.min(20, Math.max(3, owner.replace(/[^A-Za-z]/g, '').length)));
      ownerStyle.push((owner.includes('-') ? 1 : 0) | (/^[A-Z]/.test(owner) ? 2 : 0) | (/[0-9]/.test(owner) ? 4 : 0));
    }
    let r = repoIdx.get(x.repo);
    if (r === undefined) {
      r = repoOwner.length;
      repoIdx.set(x.repo, r);
      repoOwner.push(o);
      const sep = repo.includes('-') ? 0 : repo.includes('_') ? 1 : repo.includes('.') ? 2 : 3;
      repoStyle.push(sep | (/^[A-Z]/.test(repo) ? 4 : 0));
      const toks = nameTokensOf(repo);
      repoTokens.push(Math.max(1, Math.min(6, toks.length)));
      repoType.push(t);
      if (toks.length) repoDocs[t]!.push(toks);
    }
    const c = catOf(String(x.category));
    const extras = Array.isArray(x.categories) ? (x.categories as string[]).filter((k) => k !== x.category).map(catOf) : [];
    extraCats.push(extras.length ? Uint8Array.from(extras) : null);
    type.push(t);
    cat.push(c);
    repoId.push(r);
    const desc = typeof x.description === 'string' ? x.description : '';
    descLen.push(Math.min(DESC_MAX, desc.length));
    const name = String(x.name ?? '');
    nameStyle.push(nameStyleOf(name));
    const ntoks = nameTokensOf(name);
    nameTokens.push(Math.max(1, Math.min(6, ntoks.length)));
    nameIsRepo.push(name.toLowerCase() === repo.toLowerCase() ? 1 : 0);
    const tc = `${x.type}|${x.category}`;
    if (ntoks.length) push(nameDocs, tc, ntoks);
    const dt = desc ? descTokensOf(desc) : [];
    if (dt.length) push(descDocs, tc, dt);
    installs.push(Math.max(0, Number(x.installs) || 0));
    stars.push(Math.max(0, Number(x.stars) || 0));
    const h: number[] = Array.isArray(x.installsHistory) ? x.installsHistory : [];
    const last = h[h.length - 1] ?? 0;
    if (h.length === HISTORY_DAYS && last >= 100) for (const v of h) shapes.push(Math.min(1, Math.max(0, v / last)));
    else for (let i = 0; i < HISTORY_DAYS; i++) shapes.push(i === 0 ? NaN : 0);
    updatedAt.push(Date.parse(x.updatedAt) || Date.parse('2026-04-16T00:00:00Z'));
    const tags: string[] = Array.isArray(x.tags) ? x.tags.map(String) : [];
    tagCount.push(Math.min(20, tags.length));
    tagsSorted.push(tags.length > 1 && isSorted(tags) ? 1 : 0);
    workflowTags.push(x.type === 'workflow' ? tags : null);
    if (x.type !== 'workflow')
      for (const g of tags) {
        push(tagPool, tc, g);
        push(tagPool, `${x.type}|*`, g);
      }
    const cmd = typeof x.installCommand === 'string' ? x.installCommand : '';
    let kind = 0;
    if (x.type === 'mcp' && cmd) {
      const first = cmd.split(' ')[0];
      if (first === 'npx') kind = cmd.includes(' @') ? 2 : 1;
      else if (first === 'uvx') kind = 3;
      else if (first === 'docker') kind = 4;
      else if (first === 'pip') kind = 5;
      else if (first === 'npm') kind = 6;
    } else if (x.type === 'workflow' && cmd.startsWith('gh aw add')) {
      kind = cmd.includes('/workflows/') ? 2 : 1;
    }
    cmdKind.push(kind);
    authorDiffers.push(x.author && x.author !== owner ? 1 : 0);
    pluginCount.push(Math.max(1, Number(x.pluginCount) || 1));
    version.push(typeof x.version === 'string' && /^[0-9A-Za-z.+-]{1,24}$/.test(x.version) ? x.version : null);
    let mk = 0;
    if (x.type === 'plugin' && typeof x.marketplace === 'string') {
      const m = x.marketplace.toLowerCase();
      mk = m === repo.toLowerCase() ? 0 : m === `${owner}-${repo}`.toLowerCase() ? 1 : 2;
    }
    marketKind.push(mk);
  }
  const n = type.length;
  if (n === 0) throw new Error(`no listings read from ${file}`);

  // Text chains: per (type, category) when the corpus is large enough, else per category (all types).
  const MIN_CORPUS = 50;
  const descChain = new Map<string, Chain>();
  const nameChain = new Map<string, Chain>();
  const build = (docs: Map<string, string[][]>, into: Map<string, Chain>, order: number): void => {
    const perCat = new Map<string, string[][]>();
    for (const [k, v] of docs) {
      const c = k.slice(k.indexOf('|') + 1);
      let a = perCat.get(c);
      if (!a) perCat.set(c, (a = []));
      for (const d of v) a.push(d);
      if (v.length >= MIN_CORPUS) into.set(k, new Chain(order, v));
    }
    for (const [c, v] of perCat) into.set(`*|${c}`, new Chain(order, v));
    const all: string[][] = [];
    for (const v of docs.values()) for (const d of v) all.push(d);
    into.set('*|*', new Chain(order, all));
  };
  build(descDocs, descChain, 2);
  build(nameDocs, nameChain, 1);
  const allRepoDocs = repoDocs.flat();
  const globalRepo = new Chain(1, allRepoDocs);
  const repoChain = repoDocs.map((d) => (d.length >= 200 ? new Chain(1, d) : globalRepo));
  let minUpdated = Infinity,
    maxUpdated = -Infinity;
  for (const u of updatedAt) {
    if (u < minUpdated) minUpdated = u;
    if (u > maxUpdated) maxUpdated = u;
  }
  return {
    n,
    type: Uint8Array.from(type),
    cat: Uint8Array.from(cat),
    extraCats,
    descLen: Uint16Array.from(descLen),
    nameStyle: Uint8Array.from(nameStyle),
    nameTokens: Uint8Array.from(nameTokens),
    nameIsRepo: Uint8Array.from(nameIsRepo),
    repoId: Int32Array.from(repoId),
    installs: Float64Array.from(installs),
    stars: Float64Array.from(stars),
    shape: Float32Array.from(shapes),
    updatedAt: Float64Array.from(updatedAt),
    tagCount: Uint8Array.from(tagCount),
    tagsSorted: Uint8Array.from(tagsSorted),
    workflowTags,
    cmdKind: Uint8Array.from(cmdKind),
    authorDiffers: Uint8Array.from(authorDiffers),
    pluginCount: Int32Array.from(pluginCount),
    version,
    marketKind: Uint8Array.from(marketKind),
    minUpdated,
    maxUpdated,
    categories,
    repoOwner: Int32Array.from(repoOwner),
    repoStyle: Uint8Array.from(repoStyle),
    repoTokens: Uint8Array.from(repoTokens),
    repoType: Uint8Array.from(repoType),
    ownerLen: Uint8Array.from(ownerLen),
    ownerStyle: Uint8Array.from(ownerStyle),
    realOwners: new Set([...ownerIdx.keys()].map((o) => o.toLowerCase())),
    descChain,
    nameChain,
    ownerChain: new Chain(3, ownerDocs),
    repoChain,
    tagPool,
  };
}

// ---------------------------------------------------------------------------
// Slug uniqueness without holding the slugs: open-addressing set of 64-bit
// string hashes. A (vanishingly rare) hash collision only makes a fresh slug
// look taken, so the clash rule picks another one; duplicates are impossible.
// ---------------------------------------------------------------------------
class HashSet64 {
  table: Uint32Array;
  mask: number;
  constructor(expected: number) {
    let size = 1024;
    while (size < expected * 2) size *= 2;
    this.table = new Uint32Array(size * 2);
    this.mask = size - 1;
  }
  /** Adds s; returns false when it was (probably) present already. */
  add(s: string): boolean {
    let h1 = 0x811c9dc5,
      h2 = 0x9747b28c;
    for (let i = 0; i < s.length; i++) {
      const ch = s.charCodeAt(i);
      h1 = Math.imul(h1 ^ ch, 0x01000193);
      h2 = Math.imul(h2 ^ ch, 0x5bd1e995);
      h2 ^= h2 >>> 15;
    }
    h1 = splitmix32(h1 ^ s.length) >>> 0;
    h2 = splitmix32(h2) >>> 0 || 1;
    const t = this.table;
    let i = h1 & this.mask;
    for (;;) {
      const a = t[2 * i + 1];
      if (a === 0) {
        t[2 * i] = h1;
        t[2 * i + 1] = h2;
        return true;
      }
      if (a === h2 && t[2 * i] === h1) return false;
      i = (i + 1) & this.mask;
    }
  }
}

// ---------------------------------------------------------------------------
// Record generation
// ---------------------------------------------------------------------------
function slugify(s: string): string {
  return s
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');
}

function capitalise(w: string): string {
  return w ? w.charAt(0).toUpperCase() + w.slice(1) : w;
}

class Generator {
  m: Model;
  seed: number;
  count: number;
  rng: Rng;
  side = new Rng(0); // reseeded for every owner / repo name: names depend only on identity
  replicas: number;
  slugs: HashSet64;
  ownerCacheKey = -1;
  ownerCacheVal = '';
  constructor(m: Model, count: number, seed: number) {
    this.m = m;
    this.count = count;
    this.seed = seed;
    this.rng = new Rng(mix(seed, 0x5ca1e));
    this.replicas = Math.max(1, Math.ceil(count / m.n));
    this.slugs = new HashSet64(count);
  }

  private charPart(rng: Rng, target: number): string {
    const ch = this.m.ownerChain;
    let out = '';
    for (let tries = 0; tries < 4 && out.length < 3; tries++) {
      out = '';
      let ctx = 0;
      while (out.length < target + 3) {
        const c = ch.next(ctx, rng);
        if (c === EOS) {
          if (out.length >= target - 2) break;
          ctx = 0; // too short: continue with a fresh run
          continue;
        }
        out += ch.words[c];
        ctx = ch.advance(ctx, c);
      }
    }
    return out.length >= 3 ? out.slice(0, 18) : out + 'dev';
  }

  /** GitHub-style handle for replica q of real owner o (char-level chain over real owner names). */
  ownerName(o: number, q: number): string {
    const key = o * this.replicas + q;
    if (key === this.ownerCacheKey) return this.ownerCacheVal;
    const rng = this.side.reseed(mix(this.seed, 0x0e, o, q));
    const style = this.m.ownerStyle[o]!;
    const len = this.m.ownerLen[o]!;
    let name = '';
    for (let attempt = 0; attempt < 8; attempt++) {
      if (style & 1) {
        const l1 = Math.max(3, Math.round(len * rng.uniform(0.35, 0.65)));
        name = `${this.charPart(rng, l1)}-${this.charPart(rng, Math.max(3, len - l1))}`;
      } else {
        name = this.charPart(rng, len);
      }
      if (style & 2) name = name.split('-').map(capitalise).join('-');
      if (style & 4 || attempt >= 4) name += String(1 + rng.int(rng.float() < 0.7 ? 99 : 9999));
      if (!this.m.realOwners.has(name.toLowerCase())) break;
    }
    this.ownerCacheKey = key;
    this.ownerCacheVal = name;
    return name;
  }

  /** Repository name for replica q of real repository r (token chain over real repo names of its type). */
  repoName(r: number, q: number): string {
    const m = this.m;
    const rng = this.side.reseed(mix(this.seed, 0x4e, r, q));
    const chain = m.repoChain[m.repoType[r]!]!;
    const k = m.repoTokens[r]!;
    const toks = chainTokens(chain, rng, k);
    const st = m.repoStyle[r]!;
    const words = st & 4 ? toks.map(capitalise) : toks;
    const sep = ['-', '_', '.', ''][st & 3]!;
    let name = words.join(sep === '' && words.length > 1 ? '-' : sep);
    if (!name) name = 'repo';
    return name.slice(0, 60).replace(/[-_.]+$/, '');
  }

  description(type: string, cat: string, target: number): string {
    const rng = this.rng;
    const chain = this.m.descChain.get(`${type}|${cat}`) ?? this.m.descChain.get(`*|${cat}`) ?? this.m.descChain.get('*|*')!;
    if (chain.empty) return '';
    const parts: string[] = [];
    let len = 0;
    let closed = false;
    for (let docs = 0; docs < 6; docs++) {
      const prev = parts[parts.length - 1];
      if (prev !== undefined && !/[.!?…]["')\]]?$/.test(prev)) {
        parts[parts.length - 1] = prev.replace(/[,;:(\-–—/&]+$/, '') + '.';
        len += 1;
      }
      let ctx = 0;
      let stop = false;
      for (let steps = 0; steps < 200; steps++) {
        const c = chain.next(ctx, rng);
        if (c === EOS) {
          closed = true;
          break;
        }
        const w = chain.words[c]!;
        len += (parts.length ? 1 : 0) + w.length;
        parts.push(w);
        closed = false;
        ctx = chain.advance(ctx, c);
        if ((len >= target && /[.!?]["')\]]?$/.test(w)) || len >= target * 1.3 || len > DESC_MAX) {
          stop = true;
          closed = /[.!?]["')\]]?$/.test(w);
          break;
        }
      }
      if (stop || len >= target * 0.7) break;
    }
    let text = parts.join(' ');
    if (!closed && text) {
      text = text.replace(/[\s,;:(\-–—/&]+$/, '');
      if (!/[.!?…)"']$/.test(text)) text += '.';
    }
    if (text.length > DESC_MAX) {
      // like the snapshot: cut on a word boundary with an ellipsis, at most DESC_MAX characters
      const cut = text.lastIndexOf(' ', DESC_MAX - 1);
      text = text.slice(0, cut > 0 ? cut : DESC_MAX - 1).replace(/[\s,;:(\-–—/&.]+$/, '') + '…';
    }
    return text;
  }

  listingName(type: string, cat: string, tokens: number, style: number): string {
    const rng = this.rng;
    const chain = this.m.nameChain.get(`${type}|${cat}`) ?? this.m.nameChain.get(`*|${cat}`) ?? this.m.nameChain.get('*|*')!;
    let k = tokens;
    const u = rng.float();
    if (u < 0.15 && k > 1) k -= 1;
    else if (u > 0.85 && k < 5) k += 1;
    const toks = chainTokens(chain, rng, k);
    if (!toks.length) toks.push(slugify(cat).split('-')[0] || 'tool');
    switch (NAME_STYLES[style]) {
      case 'space':
        return toks.map(capitalise).join(' ');
      case 'snake':
        return toks.join('_');
      case 'dot':
        return toks.join('.');
      case 'single':
        return toks.length > 1 && rng.float() < 0.5 ? toks.join('-') : toks.join('');
      default:
        return toks.join('-');
    }
  }

  tags(t: number, type: string, cat: string): string[] {
    const m = this.m;
    if (type === 'workflow') return (m.workflowTags[t] ?? []).slice();
    const n = m.tagCount[t]!;
    if (n === 0) return [];
    const pool = m.tagPool.get(`${type}|${cat}`) ?? m.tagPool.get(`${type}|*`);
    if (!pool || pool.length === 0) return [];
    const out = new Set<string>();
    for (let tries = 0; tries < n * 4 && out.size < n; tries++) out.add(this.rng.pick(pool));
    const tags = [...out];
    if (m.tagsSorted[t]) tags.sort();
    return tags;
  }

  history(t: number, installs: number): number[] {
    const rng = this.rng;
    const h = new Array<number>(HISTORY_DAYS).fill(0);
    if (installs <= 0) return h;
    const base = t * HISTORY_DAYS;
    const shape = this.m.shape;
    if (!Number.isNaN(shape[base])) {
      // the template's real curve shape, with its growth bent a little
      const k = rng.uniform(0.8, 1.25);
      for (let i = 0; i < HISTORY_DAYS; i++) h[i] = Math.round(installs * Math.pow(shape[base + i]!, k));
    } else {
      // small listings: per-listing daily growth (lognormal around the median, capped), a few with a late spurt
      const g = Math.min(0.08, Math.exp(Math.log(0.012) + 0.7 * rng.normal()));
      const spurt = rng.float() < 0.06;
      let cur = installs;
      h[HISTORY_DAYS - 1] = cur;
      for (let day = HISTORY_DAYS - 1; day > 0; day--) {
        const rate = g * (spurt && day >= HISTORY_DAYS - 7 ? 3.5 : 1) * rng.uniform(0.4, 1.6);
        let inc = Math.round((cur * rate) / (1 + rate));
        if (cur > 0 && inc === 0 && rng.float() < Math.min(1, cur * rate)) inc = 1;
        cur = Math.max(0, cur - inc);
        h[day - 1] = cur;
      }
    }
    h[HISTORY_DAYS - 1] = installs;
    for (let i = HISTORY_DAYS - 2; i >= 0; i--) h[i] = Math.max(0, Math.min(h[i]!, h[i + 1]!));
    return h;
  }

  uniqueSlug(base: string, type: string, owner: string, repo: string): string {
    const b = base || 'listing';
    const o = slugify(owner);
    const r = slugify(repo);
    const candidates = [b];
    if (type !== 'skill') candidates.push(`${b}-${type}`);
    candidates.push(`${o}-${b}`, `${o}-${r}-${b}`);
    for (const c of candidates) if (this.slugs.add(c)) return c;
    const last = candidates[candidates.length - 1];
    for (let i = 2; ; i++) if (this.slugs.add(`${last}-${i}`)) return `${last}-${i}`;
  }

  record(): Record<string, unknown> {
    const m = this.m;
    const rng = this.rng;
    const t = rng.int(m.n); // template: a real listing, so joint distributions follow the snapshot
    const type = TYPES[m.type[t]!] as ListingType;
    const cat = m.categories[m.cat[t]!]!;
    const r = m.repoId[t]!;
    const q = rng.int(this.replicas);
    const repoName = this.repoName(r, q);
    const owner = this.ownerName(m.repoOwner[r]!, q);
    const repo = `${owner}/${repoName}`;
    const name = m.nameIsRepo[t] ? repoName : this.listingName(type, cat, m.nameTokens[t]!, m.nameStyle[t]!);
    const slug = this.uniqueSlug(slugify(name), type, owner, repoName);
    const dl = m.descLen[t]!;
    const description = dl === 0 ? '' : this.description(type, cat, Math.max(12, Math.min(DESC_MAX, Math.round(dl * rng.uniform(0.75, 1.3)))));
    const author = m.authorDiffers[t] ? owner.split('-').map(capitalise).join(' ') : owner;
    const jitter = (v: number, sigma: number): number => Math.max(0, Math.round(v * Math.exp(sigma * rng.normal())));
    const installs = jitter(m.installs[t]!, 0.35);
    const stars = jitter(m.stars[t]!, 0.3);
    const installsHistory = this.history(t, installs);
    let up = m.updatedAt[t]! + rng.normal() * 12 * 86400_000;
    up = Math.min(m.maxUpdated, Math.max(m.minUpdated, up));
    const updatedAt = new Date(Math.floor(up / 1000) * 1000).toISOString().slice(0, 19) + 'Z';
    const rec: Record<string, unknown> = {
      id: `${type}:${repo}#${slug}`,
      slug,
      type,
      name,
      description,
      repo,
      author,
      category: cat,
    };
    const extra = m.extraCats[t];
    if (extra) rec.categories = [cat, ...Array.from(extra, (i) => m.categories[i])];
    rec.tags = this.tags(t, type, cat);
    rec.installs = installs;
    rec.stars = stars;
    rec.metricsSource = 'synthetic';
    rec.metrics = { installs: 'synthetic', stars: 'synthetic', history: 'synthetic' };
    rec.installsHistory = installsHistory;
    rec.updatedAt = updatedAt;
    rec.source = { via: 'generated', seed: this.seed };
    const ol = owner.toLowerCase();
    const rl = repoName.toLowerCase();
    const nameSlug = slugify(name) || rl;
    switch (type) {
      case 'skill':
        rec.installCommand = `npx skills add ${repo}`;
        break;
      case 'marketplace':
        rec.installCommand = `/plugin marketplace add ${repo}`;
        rec.pluginCount = Math.max(1, Math.round(m.pluginCount[t]! * Math.exp(0.3 * rng.normal())));
        break;
      case 'plugin': {
        const mk = m.marketKind[t];
        const market = slugify(mk === 0 ? rl : mk === 1 ? `${ol}-${rl}` : `${ol}-${rl.split(/[^a-z0-9]+/).pop()}`);
        rec.installCommand = `/plugin install ${name}@${market}`;
        rec.marketplace = market;
        const v = m.version[t];
        if (v) rec.version = v;
        break;
      }
      case 'mcp': {
        const kind = MCP_CMD_KINDS[m.cmdKind[t]!];
        if (kind === 'npx') rec.installCommand = `npx -y ${rl}`;
        else if (kind === 'npx-scoped') rec.installCommand = `npx -y @${ol}/${nameSlug}`;
        else if (kind === 'uvx') rec.installCommand = `uvx ${rl}`;
        else if (kind === 'docker') rec.installCommand = `docker run -i --rm mcp/${nameSlug}`;
        else if (kind === 'pip') rec.installCommand = `pip install ${rl}`;
        else if (kind === 'npm') rec.installCommand = `npm install -g ${rl}`;
        break;
      }
      case 'workflow': {
        const kind = m.cmdKind[t];
        if (kind) rec.installCommand = `gh aw add ${repo}/${kind === 2 ? 'workflows/' : ''}${nameSlug}`;
        break;
      }
    }
    return rec;
  }
}

/** Up to k tokens from an order-1 chain, avoiding immediate repeats; stops early at a natural end. */
function chainTokens(chain: Chain, rng: Rng, k: number): string[] {
  const out: string[] = [];
  if (chain.empty) return out;
  let b = BOS; // order 1: the context is the previous token
  while (out.length < k) {
    let c = EOS;
    for (let tries = 0; tries < 4; tries++) {
      c = chain.next(b, rng);
      if (c !== EOS && c !== b) break; // prefer reaching k tokens, never "x-x"
    }
    if (c === EOS || c === b) break;
    out.push(chain.words[c]!);
    b = c;
  }
  return out;
}

// ---------------------------------------------------------------------------
// Public API
// ---------------------------------------------------------------------------
export async function generateCatalog(opts: GenerateOptions): Promise<GenerateResult> {
  const count = opts.count;
  const seed = opts.seed ?? 1;
  if (!Number.isSafeInteger(count) || count < 0) throw new Error(`count must be a non-negative integer, got ${count}`);
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff) throw new Error(`seed must be an integer in [0, 2^32), got ${seed}`);
  const model = await loadModel(opts.snapshotPath ?? defaultSnapshotPath());
  const gen = new Generator(model, count, seed);

  const ownStream = typeof opts.out === 'string';
  const out: NodeJS.WritableStream = typeof opts.out === 'string' ? createWriteStream(opts.out) : opts.out;
  const hash = createHash('sha256');
  let bytes = 0;
  let failed: unknown = null;
  const onError = (e: unknown): void => {
    failed ??= e;
  };
  out.on('error', onError);
  const flush = async (lines: string[]): Promise<void> => {
    if (failed) throw failed;
    const buf = Buffer.from(lines.join(''), 'utf8');
    hash.update(buf);
    bytes += buf.length;
    if (!out.write(buf)) await once(out as NodeJS.EventEmitter, 'drain');
  };
  try {
    let lines: string[] = [];
    let pending = 0;
    for (let i = 0; i < count; i++) {
      const line = JSON.stringify(gen.record()) + '\n';
      lines.push(line);
      pending += line.length;
      if (pending >= 1 << 20) {
        await flush(lines);
        lines = [];
        pending = 0;
      }
    }
    if (lines.length) await flush(lines);
    if (ownStream) {
      const done = once(out as NodeJS.EventEmitter, 'close');
      out.end();
      await done;
    }
    if (failed) throw failed;
  } finally {
    out.removeListener('error', onError);
    if (ownStream && failed) (out as unknown as { destroy(): void }).destroy();
  }
  return { count, bytes, sha256: hash.digest('hex') };
}

// ---------------------------------------------------------------------------
// CLI
// ---------------------------------------------------------------------------
async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      count: { type: 'string', short: 'n', default: '100000' },
      seed: { type: 'string', short: 's', default: '1' },
      out: { type: 'string', short: 'o' },
      snapshot: { type: 'string' },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help || !values.out) {
    process.stderr.write('usage: node build/scale/generate-catalog.ts --count 100000 --seed 1 --out catalog.jsonl|- [--snapshot data/listings.jsonl]\n');
    process.exitCode = values.help ? 0 : 2;
    return;
  }
  const count = Number(values.count);
  const seed = Number(values.seed);
  const toStdout = values.out === '-';
  const t0 = performance.now();
  const res = await generateCatalog({
    count,
    seed,
    snapshotPath: values.snapshot,
    out: toStdout ? process.stdout : values.out,
  });
  const secs = (performance.now() - t0) / 1000;
  const summary =
    `generated ${res.count} listings (seed ${seed}) → ${toStdout ? 'stdout' : values.out}: ` +
    `${res.bytes} bytes, sha256 ${res.sha256}, ${secs.toFixed(1)} s, ` +
    `rss ${(process.memoryUsage().rss / 2 ** 20).toFixed(0)} MiB\n`;
  (toStdout ? process.stderr : process.stdout).write(summary);
}

const invokedDirectly = (() => {
  try {
    return !!process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url);
  } catch {
    return false;
  }
})();
if (invokedDirectly) {
  main().catch((e) => {
    process.stderr.write(`generate-catalog: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exitCode = 1;
  });
}
