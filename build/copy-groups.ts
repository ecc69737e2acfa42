// Copy groups: listings that publish the same thing (an aggregator re-hosting anthropics/skills, a fork listed
// again), each group with one origin. Pure: listings in, groups out; the index stage writes the result into the
// listing JSON (copyOf, copyKind, copies) and the copyGroup column that folds search results.
//
// Rules (documented for users in src/docs/copies.md):
// - Exact copy: the same SKILL.md after normalising line endings and whitespace (both stored), or, for the same type,
//   the same name and the same non-empty description, or the same description of MIN_SHARED_DESCRIPTION characters
//   or more (a renamed copy: "pdf-official" re-hosting "pdf").
// - Modified copy: the same type and name (case, hyphens, underscores and spaces aside) and descriptions of at least
//   MIN_NEAR_DESCRIPTION characters whose word-bigram Jaccard similarity is NEAR_COPY_THRESHOLD or more; where both
//   SKILL.md files are stored, their similarity (the same measure over the files) decides instead. Two exact copies
//   whose SKILL.md files differ are modified copies of each other too.
// - Origin: first a member whose repository owner the other owners' copies name (vercel-deploy re-hosted by
//   supercent-io names vercel: vercel-labs' listing is the publisher's own); then, when every member knows the first
//   commit of its file (git sources read the whole history), the earliest; then the member people install (measured
//   installs), then the one whose repository has the most measured stars, then the one changed longest ago, then the
//   smaller id. Dates decide only a group dated whole: an undated member may be older than every dated one. The last
//   change alone would name a stale re-host (ComposioHQ's copies stopped changing in 2025) the original.
import { createHash } from 'node:crypto';
import { compareIds } from '../src/domain/listing/ranking.ts';

/** A description shared word for word from this length on is a copy whatever the names. */
export const MIN_SHARED_DESCRIPTION = 60;
/** Shorter descriptions say too little for a similarity to mean anything. */
export const MIN_NEAR_DESCRIPTION = 40;
/** Word-bigram Jaccard similarity from which a same-named listing is a modified copy. */
export const NEAR_COPY_THRESHOLD = 0.5;
/**
 * A name shared by more listings than this ("mcp-server") compares only its first ones: the pairs grow with the
 * square of the bucket, and such generic names are seldom copies of each other.
 */
const NEAR_BUCKET_MAX = 64;

export interface CopyCandidate {
  id: string;
  type: string;
  name: string;
  description: string;
  installs: number;
  installsReal: boolean;
  stars: number;
  starsReal: boolean;
  updatedAt: string;
  /** The first commit of the listing's file, when a git source read the whole history. */
  firstCommitAt?: string | undefined;
  /** The stored SKILL.md, when there is one. */
  skillMd?: string | undefined;
}

export interface CopyMembership {
  /** Index (in the input) of the group's origin. */
  origin: number;
  /** 'exact' or 'modified' relative to the origin; undefined for the origin itself. */
  kind: 'exact' | 'modified' | undefined;
  /** Word-bigram similarity to the origin (1 for exact copies). */
  similarity: number;
}

export interface CopyGroups {
  /** Per input listing; undefined when it is in no group. */
  members: (CopyMembership | undefined)[];
  /** Number of groups of two or more. */
  groups: number;
  /** Listings that are copies (members that are not origins). */
  copies: number;
}

/** Line endings unified, runs of whitespace one space, ends trimmed. */
export function normaliseText(text: string): string {
  return text.replace(/\r\n?/g, '\n').replace(/\s+/g, ' ').trim();
}

function normaliseName(name: string): string {
  return name
    .toLowerCase()
    .replace(/[\s_.-]+/g, '-')
    .replace(/^-|-$/g, '');
}

/** The word bigrams of a text (lower case, letters and digits), as strings. */
export function wordBigrams(text: string): Set<string> {
  const words = text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
  const out = new Set<string>();
  if (words.length === 1) out.add(words[0]!);
  for (let i = 0; i + 1 < words.length; i++) out.add(`${words[i]} ${words[i + 1]}`);
  return out;
}

const NON_ASCII = /[^\t\n\r\u0020-\u007e]/;

/**
 * The same bigrams as numbers (each word numbered in `vocabulary`, a pair as first * 2^26 + second): equal sets
 * and equal similarities, without a string per bigram. Grouping 100,000 listings made millions of them.
 */
function bigramKeys(text: string, vocabulary: Map<string, number>): Set<number> {
  const lower = text.toLowerCase();
  // ASCII text (nearly every description) takes the plain pattern: the Unicode one is several times slower.
  const words = (NON_ASCII.test(lower) ? lower.match(/[\p{L}\p{N}]+/gu) : lower.match(/[a-z0-9]+/g)) ?? [];
  const ids = words.map((word) => {
    let id = vocabulary.get(word);
    if (id === undefined) vocabulary.set(word, (id = vocabulary.size));
    return id;
  });
  const out = new Set<number>();
  if (ids.length === 1) out.add(-1 - ids[0]!);
  for (let i = 0; i + 1 < ids.length; i++) out.add(ids[i]! * 2 ** 26 + ids[i + 1]!);
  return out;
}

/** Jaccard similarity of two sets: shared over all. */
export function jaccard<T>(a: ReadonlySet<T>, b: ReadonlySet<T>): number {
  if (a.size === 0 && b.size === 0) return 0;
  const [small, large] = a.size <= b.size ? [a, b] : [b, a];
  let shared = 0;
  for (const item of small) if (large.has(item)) shared++;
  return shared / (a.size + b.size - shared);
}

class UnionFind {
  readonly parent: Int32Array;
  constructor(n: number) {
    this.parent = Int32Array.from({ length: n }, (_, i) => i);
  }
  find(i: number): number {
    let root = i;
    while (this.parent[root] !== root) root = this.parent[root]!;
    while (this.parent[i] !== root) {
      const next = this.parent[i]!;
      this.parent[i] = root;
      i = next;
    }
    return root;
  }
  union(a: number, b: number): void {
    const ra = this.find(a);
    const rb = this.find(b);
    if (ra !== rb) this.parent[Math.max(ra, rb)] = Math.min(ra, rb);
  }
}

/** Words of an owner too common to name a publisher ("vercel-labs" names vercel, "ComposioHQ" composiohq). */
const GENERIC_OWNER_WORDS = new Set([
  'labs',
  'team',
  'official',
  'skills',
  'agent',
  'agents',
  'tools',
  'claude',
  'code',
  'plugins',
  'awesome',
  'server',
  'servers',
  'community',
  'open',
  'source',
]);

/** The words of an owner that may name its own product: four letters or more, generic words aside. */
function ownerWords(id: string): string[] {
  const owner = id.slice(id.indexOf(':') + 1, id.indexOf('/')).toLowerCase();
  return owner.split(/[-_.]+/).filter((word) => word.length >= 4 && !GENERIC_OWNER_WORDS.has(word));
}

function nameWords(name: string): Set<string> {
  return new Set(name.toLowerCase().split(/[^\p{L}\p{N}]+/u));
}

function ownerOf(id: string): string {
  return id.slice(id.indexOf(':') + 1, id.indexOf('/')).toLowerCase();
}

/**
 * The members whose repository owner the group's members of other owners name (vercel-deploy re-hosted by
 * supercent-io names vercel, so vercel-labs' listing is the publisher's own). A name that only its own owner gives
 * itself (a fork of a marketplace named after the forker) does not count.
 */
export function namedByOthers(members: readonly Pick<CopyCandidate, 'id' | 'name'>[]): Set<number> {
  // Word → the owners whose members' names hold it: one pass over the names, not one per pair of members.
  const ownersNaming = new Map<string, Set<string>>();
  for (const member of members) {
    const owner = ownerOf(member.id);
    for (const word of nameWords(member.name)) {
      const owners = ownersNaming.get(word);
      if (owners) owners.add(owner);
      else ownersNaming.set(word, new Set([owner]));
    }
  }
  const named = new Set<number>();
  members.forEach((member, i) => {
    const owner = ownerOf(member.id);
    const namedBy = (word: string) => {
      const owners = ownersNaming.get(word);
      return owners !== undefined && (owners.size > 1 || !owners.has(owner));
    };
    if (ownerWords(member.id).some(namedBy)) named.add(i);
  });
  return named;
}

/**
 * Origin order: named by the other members, first committed earliest (`byFirstCommit`: the group is dated whole),
 * measured installs, measured stars, changed longest ago, id. Negative when `a` is the better origin.
 */
export function compareOrigin(a: CopyCandidate & { named?: boolean }, b: CopyCandidate & { named?: boolean }, byFirstCommit = false): number {
  const named = Number(b.named ?? false) - Number(a.named ?? false);
  if (named !== 0) return named;
  if (byFirstCommit) {
    const first = Date.parse(a.firstCommitAt!) - Date.parse(b.firstCommitAt!);
    if (first !== 0) return first;
  }
  const installs = (a.installsReal ? a.installs : -1) - (b.installsReal ? b.installs : -1);
  if (installs !== 0) return -installs;
  const stars = (a.starsReal ? a.stars : -1) - (b.starsReal ? b.stars : -1);
  if (stars !== 0) return -stars;
  if (a.updatedAt !== b.updatedAt) return a.updatedAt < b.updatedAt ? -1 : 1;
  return compareIds(a.id, b.id);
}

/** The index (in `members`) of a copy group's origin, by the origin order (compareOrigin). */
export function pickOrigin(members: readonly CopyCandidate[]): number {
  const named = namedByOthers(members);
  const dated = members.every((member) => member.firstCommitAt !== undefined && !Number.isNaN(Date.parse(member.firstCommitAt)));
  let best = 0;
  for (let k = 1; k < members.length; k++) {
    if (compareOrigin({ ...members[k]!, named: named.has(k) }, { ...members[best]!, named: named.has(best) }, dated) < 0) best = k;
  }
  return best;
}

export function computeCopyGroups(listings: readonly CopyCandidate[]): CopyGroups {
  const n = listings.length;
  const exact = new UnionFind(n);
  const firstByKey = new Map<string, number>();
  const join = (key: string, i: number) => {
    const first = firstByKey.get(key);
    if (first === undefined) firstByKey.set(key, i);
    else exact.union(first, i);
  };
  const mdHash: (string | undefined)[] = new Array(n);
  const descriptions = listings.map((listing) => normaliseText(listing.description));
  listings.forEach((listing, i) => {
    if (listing.skillMd !== undefined) {
      mdHash[i] = createHash('sha1').update(normaliseText(listing.skillMd)).digest('hex');
      join(`m\0${mdHash[i]}`, i);
    }
    const description = descriptions[i]!;
    if (description.length === 0) return;
    join(`n\0${listing.type}\0${normaliseName(listing.name)}\0${description}`, i);
    if (description.length >= MIN_SHARED_DESCRIPTION) join(`d\0${listing.type}\0${description}`, i);
  });

  // Near copies: pairs of exact groups within a bucket of one type and name.
  const all = new UnionFind(n);
  for (let i = 0; i < n; i++) all.union(i, exact.find(i));
  // Bigrams made once per listing compared: a bucket compares each of its members with every other.
  const fileBigrams = new Map<number, Set<number>>();
  const descriptionBigrams = new Map<number, Set<number>>();
  const vocabulary = new Map<string, number>();
  const cached = (cache: Map<number, Set<number>>, i: number, text: string) => {
    let set = cache.get(i);
    if (!set) cache.set(i, (set = bigramKeys(text, vocabulary)));
    return set;
  };
  const similarity = (a: number, b: number): number => {
    // Both files stored: the files say more than the one-line descriptions.
    if (listings[a]!.skillMd !== undefined && listings[b]!.skillMd !== undefined) {
      if (mdHash[a] === mdHash[b]) return 1;
      return jaccard(cached(fileBigrams, a, listings[a]!.skillMd!), cached(fileBigrams, b, listings[b]!.skillMd!));
    }
    return jaccard(cached(descriptionBigrams, a, descriptions[a]!), cached(descriptionBigrams, b, descriptions[b]!));
  };
  const buckets = new Map<string, number[]>();
  listings.forEach((listing, i) => {
    if (descriptions[i]!.length < MIN_NEAR_DESCRIPTION) return;
    const key = `${listing.type}\0${normaliseName(listing.name)}`;
    const bucket = buckets.get(key);
    if (!bucket) buckets.set(key, [i]);
    else if (bucket.length < NEAR_BUCKET_MAX) bucket.push(i);
  });
  for (const bucket of buckets.values()) {
    if (bucket.length < 2) continue;
    // One representative per exact group: its members are alike already.
    const reps = [...new Map(bucket.map((i) => [exact.find(i), i])).values()];
    for (let x = 0; x < reps.length; x++)
      for (let y = x + 1; y < reps.length; y++)
        if (all.find(reps[x]!) !== all.find(reps[y]!) && similarity(reps[x]!, reps[y]!) >= NEAR_COPY_THRESHOLD) all.union(reps[x]!, reps[y]!);
  }

  const groupsOf = new Map<number, number[]>();
  for (let i = 0; i < n; i++) {
    const root = all.find(i);
    const list = groupsOf.get(root);
    if (list) list.push(i);
    else groupsOf.set(root, [i]);
  }
  const members: (CopyMembership | undefined)[] = new Array(n).fill(undefined);
  let groups = 0;
  let copies = 0;
  for (const list of groupsOf.values()) {
    if (list.length < 2) continue;
    groups++;
    copies += list.length - 1;
    const origin = list[pickOrigin(list.map((i) => listings[i]!))]!;
    for (const i of list) {
      if (i === origin) {
        members[i] = { origin, kind: undefined, similarity: 1 };
        continue;
      }
      const sameFiles = mdHash[i] === undefined || mdHash[origin] === undefined || mdHash[i] === mdHash[origin];
      const isExact = exact.find(i) === exact.find(origin) && sameFiles;
      members[i] = { origin, kind: isExact ? 'exact' : 'modified', similarity: isExact ? 1 : Math.round(similarity(i, origin) * 100) / 100 };
    }
  }
  return { members, groups, copies };
}
