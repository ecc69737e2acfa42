// Install counts of skills, from the skills.sh leaderboard API or from a file someone exported. The API's
// auth policy and shape have changed more than once, so the key is
// optional and the reader takes every shape seen; anything that goes wrong returns `error` and no counts, and the
// caller keeps the previous counts: a missing figure is never turned into zero installs.
//
// Accepted shapes (keys case-insensitive):
// - CSV file (`.csv`): a header row naming the columns, RFC 4180 quoting; columns `repo` or `source`
//   (`owner/repo` or a GitHub URL), `skill` or `name` or `skillId`, `installs`. Other columns are ignored.
// - JSON file (any other name): an array of records, or an object holding one under `skills`, `counts`, `items`
//   or `data`; each record has the same keys as the CSV columns (`installCount` and `count` also name installs).
// - API (`http(s)://` base, e.g. https://skills.sh/api/v1): `GET <base>/skills?view=all-time&page=N` from page 1,
//   `Authorization: Bearer <key>` when the key variable is set; each page `{skills: [...records]}` (or any of the
//   JSON file shapes); more pages while `hasMore` is true, or `page < totalPages`, or fewer than `total` records
//   have been read; with none of those, until an empty page (or one that repeats the previous page).
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';
import { fileURLToPath } from 'node:url';
import { REPO_PATTERN } from '../../../src/domain/schemas.ts';
import { parseJson, sourceClient, type HttpTuning } from '../http.ts';
import { sourceId, type InstallsSource } from '../sources-file.ts';
import { emptyStats, type InstallCount, type SourceContext, type SourceStats } from '../types.ts';
import { githubRepoOf } from './mcp-registry.ts';

export interface InstallsResult {
  counts: InstallCount[];
  stats: SourceStats;
  /** Set when the source could not be read: `counts` is then empty and the previous counts stand. */
  error?: string;
}

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const LIST_KEYS = ['skills', 'counts', 'items', 'data'];

/** A record's value under the first of `keys` it has, matching keys case-insensitively. */
function pick(record: Json, keys: string[]): unknown {
  const lower = new Map(Object.entries(record).map(([key, value]) => [key.toLowerCase(), value]));
  for (const key of keys) if (lower.get(key.toLowerCase()) != null && lower.get(key.toLowerCase()) !== '') return lower.get(key.toLowerCase());
  return undefined;
}

function repoOf(value: unknown): string | undefined {
  if (typeof value !== 'string') return undefined;
  const trimmed = value.trim().replace(/^github\.com\//i, '');
  return REPO_PATTERN.test(trimmed) ? trimmed : githubRepoOf(trimmed);
}

/** The list of records of a JSON document (an array, or an object holding one), or undefined. */
function recordsOf(value: unknown): unknown[] | undefined {
  if (Array.isArray(value)) return value;
  if (!isObject(value)) return undefined;
  for (const key of LIST_KEYS) if (Array.isArray(value[key])) return value[key];
  return undefined;
}

interface Reader {
  add(record: unknown, where: string): void;
  counts(): InstallCount[];
}

function reader(stats: SourceStats, asOf: string, source: string): Reader {
  const byKey = new Map<string, InstallCount>();
  return {
    add(record, where) {
      if (!isObject(record)) return void stats.warnings.push({ where, message: 'not a record; skipped' });
      const repo = repoOf(pick(record, ['repo', 'source']));
      const skill = pick(record, ['skill', 'name', 'skillId', 'skill_id']);
      const rawInstalls = pick(record, ['installs', 'installCount', 'count']);
      const installs = typeof rawInstalls === 'string' && /^\d+$/.test(rawInstalls.trim()) ? Number(rawInstalls.trim()) : rawInstalls;
      if (!repo) return void stats.warnings.push({ where, message: 'no owner/repo (repo or source); skipped' });
      if (typeof skill !== 'string' || skill.trim() === '') return void stats.warnings.push({ where, message: 'no skill name; skipped' });
      if (typeof installs !== 'number' || !Number.isSafeInteger(installs) || installs < 0)
        return void stats.warnings.push({ where, message: `installs ${JSON.stringify(rawInstalls)} is not a count; skipped` });
      const key = `${repo.toLowerCase()}\0${skill.trim().toLowerCase()}`;
      const held = byKey.get(key);
      // A skill listed twice (two leaderboard pages shifted under us): the larger count is the later one.
      if (!held || installs > held.installs) byKey.set(key, { repo, skill: skill.trim(), installs, asOf, source });
    },
    counts: () => [...byKey.values()].sort((a, b) => (a.repo === b.repo ? (a.skill < b.skill ? -1 : 1) : a.repo < b.repo ? -1 : 1)),
  };
}

/** RFC 4180 rows: quoted fields may hold commas, doubled quotes and line breaks. */
export function parseCsv(text: string): string[][] {
  const rows: string[][] = [];
  let row: string[] = [];
  let cell = '';
  let quoted = false;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quoted) {
      if (c === '"' && text[i + 1] === '"') {
        cell += '"';
        i++;
      } else if (c === '"') quoted = false;
      else cell += c;
    } else if (c === '"' && cell === '') quoted = true;
    else if (c === ',') {
      row.push(cell);
      cell = '';
    } else if (c === '\n' || c === '\r') {
      if (c === '\r' && text[i + 1] === '\n') i++;
      row.push(cell);
      if (row.some((value) => value.trim() !== '')) rows.push(row);
      row = [];
      cell = '';
    } else cell += c;
  }
  row.push(cell);
  if (row.some((value) => value.trim() !== '')) rows.push(row);
  return rows;
}

function readFile(path: string, read: Reader): string | undefined {
  let text: string;
  try {
    text = readFileSync(path, 'utf8').replace(/^\uFEFF/, '');
  } catch (error) {
    return `cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`;
  }
  if (/\.csv$/i.test(path)) {
    const [header, ...rows] = parseCsv(text);
    if (!header) return `${path}: empty CSV`;
    const names = header.map((name) => name.trim());
    rows.forEach((cells, i) => read.add(Object.fromEntries(names.map((name, j) => [name, cells[j]?.trim() ?? ''])), `${path}:${i + 2}`));
    return undefined;
  }
  const parsed = parseJson(text);
  if (!parsed) return `${path}: not JSON`;
  const records = recordsOf(parsed.value);
  if (!records) return `${path}: no list of records (an array, or one under ${LIST_KEYS.join(', ')})`;
  records.forEach((record, i) => read.add(record, `${path}[${i}]`));
  return undefined;
}

export async function fetchInstalls(entry: InstallsSource, ctx: SourceContext, tuning: HttpTuning = {}): Promise<InstallsResult> {
  const stats = emptyStats();
  const asOf = ctx.now.toISOString().slice(0, 10);
  const isApi = /^https?:\/\//i.test(entry.url);
  if (!isApi) {
    const path = entry.url.startsWith('file:') ? fileURLToPath(entry.url) : entry.url;
    // A figure's source is a short name: the entry's own id when it was given one, else the file's name.
    const named = entry.id && entry.id !== sourceId({ ...entry, id: undefined }) ? entry.id : undefined;
    const read = reader(stats, asOf, named ?? basename(path));
    const error = readFile(path, read);
    if (error) return { counts: [], stats, error };
    ctx.log(`installs: ${read.counts().length} counts from ${path}`);
    return { counts: read.counts(), stats };
  }

  const base = entry.url.replace(/\/+$/, '').replace(/\/skills$/, '');
  const key = ctx.env[entry.keyEnv]?.trim();
  const http = sourceClient(
    stats,
    entry,
    ctx.signal,
    { accept: 'application/json', 'user-agent': 'catalog-collect', ...(key ? { authorization: `Bearer ${key}` } : {}) },
    tuning,
  );
  const read = reader(stats, asOf, new URL(base).hostname);
  let seen = 0;
  let previousPage = '';
  for (let page = 1; ; page++) {
    if (page > entry.maxPages) {
      stats.warnings.push({ where: base, message: `stopped after ${entry.maxPages} pages (maxPages); the rest keep their previous counts` });
      break;
    }
    const url = `${base}/skills?view=all-time&page=${page}`;
    const answer = await http.request(url);
    if (!answer.ok) return { counts: [], stats, error: `page ${page}: ${answer.message}` };
    if (answer.status !== 200) {
      const hint = answer.status === 401 || answer.status === 403 ? ` (set ${entry.keyEnv} if the API needs a key)` : '';
      return { counts: [], stats, error: `page ${page}: GET ${url} answered ${answer.status}${hint}` };
    }
    const body = parseJson(answer.text)?.value;
    const records = recordsOf(body);
    if (!records) return { counts: [], stats, error: `page ${page}: GET ${url}: not a page of skills (incomplete JSON or another shape)` };
    if (records.length === 0) break;
    const fingerprint = JSON.stringify(records);
    // An API that ignores `page` would serve page 1 forever.
    if (fingerprint === previousPage) {
      stats.warnings.push({ where: url, message: 'the same records as the page before; stopped' });
      break;
    }
    previousPage = fingerprint;
    records.forEach((record, i) => read.add(record, `${url}[${i}]`));
    seen += records.length;
    const meta = isObject(body) ? body : {};
    const pagination = isObject(meta.pagination) ? meta.pagination : meta;
    if (typeof pagination.hasMore === 'boolean') {
      if (!pagination.hasMore) break;
    } else if (typeof pagination.totalPages === 'number') {
      if (page >= pagination.totalPages) break;
    } else if (typeof pagination.total === 'number' && seen >= pagination.total) break;
  }
  ctx.log(`installs: ${read.counts().length} counts from ${base}`);
  return { counts: read.counts(), stats };
}
