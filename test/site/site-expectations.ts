// What the built pages should say, derived from the same domain modules and runtime artifacts the build reads,
// plus small HTML helpers for tests that read pages as text.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadDocs } from '../../src/docs/index.ts';
import { LISTING_TYPES, TYPE_LABELS, type ListingType } from '../../src/domain/listing/listing-types.ts';
import type { StoredListing } from '../../src/domain/listing/listing-view.ts';
import type { Category } from '../../src/domain/schemas.ts';
import { SHORTLIST } from '../../src/domain/listing/shortlists.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import { typeNoun } from '../../src/page-model/format.ts';

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", '#39': "'", nbsp: ' ' };

export function decodeEntities(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (whole, name: string) => {
    if (name.startsWith('#x')) return String.fromCodePoint(parseInt(name.slice(2), 16));
    if (name.startsWith('#') && name !== '#39') return String.fromCodePoint(Number(name.slice(1)));
    return ENTITIES[name] ?? whole;
  });
}

/** Visible-ish text of an HTML fragment: tags dropped, entities decoded, whitespace collapsed. */
export function textOf(html: string): string {
  return decodeEntities(html.replace(/<script[\s\S]*?<\/script>/g, ' ').replace(/<[^>]+>/g, ' '))
    .replace(/\s+/g, ' ')
    .trim();
}

export function headingsOf(html: string, level = 1): string[] {
  return [...html.matchAll(new RegExp(`<h${level}[^>]*>([\\s\\S]*?)</h${level}>`, 'g'))].map((m) => textOf(m[1]!));
}

export interface BuiltCatalog {
  listings: Map<string, Pick<StoredListing, 'slug' | 'name' | 'type'>>;
  categories: Category[];
  count: number;
  /** Lower-cased owner → its name as first written (in listing order), as the owner page's h1 shows it. */
  owners: Map<string, string>;
  /** Lower-cased owner → how many listings it has. */
  ownerListings: Map<string, number>;
  /** "type/category" → listings a comparison can show: at most two of each repository, none archived. */
  comparable: Map<string, number>;
}

export function readBuiltCatalog(buildDir: string): BuiltCatalog {
  const runtime = join(buildDir, 'runtime');
  const manifest = JSON.parse(readFileSync(join(runtime, 'manifest.json'), 'utf8')) as { categories: Category[]; count: number };
  const listings = new Map<string, Pick<StoredListing, 'slug' | 'name' | 'type'>>();
  const owners = new Map<string, string>();
  const ownerListings = new Map<string, number>();
  const perRepo = new Map<string, number>();
  const comparable = new Map<string, number>();
  for (const line of readFileSync(join(runtime, 'listings.jsonl'), 'utf8').split('\n')) {
    if (!line) continue;
    const { slug, name, type, repo, categories, archived } = JSON.parse(line) as StoredListing;
    // An archived listing is in no comparison.
    for (const category of archived ? [] : categories) {
      const key = `${type}/${category}/${repo.toLowerCase()}`;
      perRepo.set(key, (perRepo.get(key) ?? 0) + 1);
      if (perRepo.get(key)! <= 2) comparable.set(`${type}/${category}`, (comparable.get(`${type}/${category}`) ?? 0) + 1);
    }
    listings.set(slug, { slug, name, type });
    const owner = repo.split('/')[0]!;
    if (!owners.has(owner.toLowerCase())) owners.set(owner.toLowerCase(), owner);
    ownerListings.set(owner.toLowerCase(), (ownerListings.get(owner.toLowerCase()) ?? 0) + 1);
  }
  return { listings, categories: manifest.categories, count: manifest.count, owners, ownerListings, comparable };
}

const plural = (type: ListingType) => TYPE_LABELS[type].plural;

/** The h1 each page of the site must have, by site path; undefined for a path that is no page of ours. */
export function expectedH1(catalog: BuiltCatalog, path: string): string | undefined {
  const fixed: Record<string, string> = {
    [SITE_PATHS.home]: 'Find agent skills, MCP servers and plugins',
    [SITE_PATHS.browse]: 'Browse the catalog',
    [SITE_PATHS.mcpHub]: 'MCP servers',
    [SITE_PATHS.login]: 'Staff sign-in',
    [SITE_PATHS.docsIndex]: 'Documentation',
  };
  if (fixed[path]) return fixed[path];
  for (const doc of loadDocs()) if (path === SITE_PATHS.doc(doc.slug)) return doc.title;
  for (const type of LISTING_TYPES) if (path === SITE_PATHS.type(type)) return plural(type);
  for (const category of catalog.categories) {
    if (path === SITE_PATHS.category(category.type, category.name)) return `${plural(category.type)}: ${category.label}`;
    if (path === SITE_PATHS.compare(category.type, category.name))
      return `Top ${Math.min(SHORTLIST.size, catalog.comparable.get(`${category.type}/${category.name}`) ?? 0)} ${typeNoun(category.type, true)} for ${category.label}, compared`;
  }
  const owner = /^\/owners\/([^/]+)\/$/.exec(path)?.[1];
  if (owner !== undefined) return catalog.owners.get(decodeURIComponent(owner));
  const slug = /^\/listings\/([^/]+)\/$/.exec(path)?.[1];
  const listing = slug === undefined ? undefined : catalog.listings.get(slug);
  if (listing) return `${listing.name} ${TYPE_LABELS[listing.type].singular}`;
  return undefined;
}
