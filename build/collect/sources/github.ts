// Repository metadata (stars, archived, last push, licence, current full name) for every listing's repository.
// With a token: GraphQL, `batch` repositories per query as aliases (about 1 point a query: no connections), so the
// snapshot's repositories fit one token's hourly budget. Without one (GraphQL needs a token) or in
// `rest` mode: GET /repos/{owner}/{repo}, conditional on the ETag kept in the state directory, so an unchanged
// repository answers 304 (free of the primary limit when authorised). Either way the run spends at most `budget`
// requests and stops cleanly on a limit it should not wait out, returning what it has: the caller keeps the last
// known figures of every repository not in the map.
import { join } from 'node:path';
import { REPO_PATTERN } from '../../../src/domain/schemas.ts';
import { ConditionalStore, parseJson, sourceClient, type HttpAnswer, type HttpTuning } from '../http.ts';
import type { GithubSource } from '../sources-file.ts';
import { emptyStats, type RepoMeta, type SourceContext, type SourceStats } from '../types.ts';

/** Network failures in a row (each after its retries) that stop the source. */
export const UNREACHABLE_AFTER = 3;

export interface GithubMetadataResult {
  meta: Map<string, RepoMeta>;
  stats: SourceStats;
  /** Why the run ended before every repository was read (budget spent, rate limit, token refused, aborted). */
  stoppedEarly?: string;
}

const ETAG_FILE = 'github-etags.json';
const API_VERSION = '2022-11-28';

type Json = Record<string, unknown>;
const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The figures without the date, as kept beside the ETag so a 304 is answerable without the caller's map. */
type Figures = Omit<RepoMeta, 'asOf' | 'repo' | 'missing'>;

/** Where each figure sits in one of GitHub's two answers: the REST repository object and the GraphQL node. */
interface FigureFields {
  fullName: string;
  stars: string;
  archived: string;
  pushedAt: string;
  license: string;
  spdxId: string;
}
const REST_FIELDS: FigureFields = {
  fullName: 'full_name',
  stars: 'stargazers_count',
  archived: 'archived',
  pushedAt: 'pushed_at',
  license: 'license',
  spdxId: 'spdx_id',
};
const GRAPHQL_FIELDS: FigureFields = {
  fullName: 'nameWithOwner',
  stars: 'stargazerCount',
  archived: 'isArchived',
  pushedAt: 'pushedAt',
  license: 'licenseInfo',
  spdxId: 'spdxId',
};

function figuresOf(body: Json, fields: FigureFields): Figures | undefined {
  const fullName = body[fields.fullName];
  const stars = body[fields.stars];
  if (typeof fullName !== 'string' || typeof stars !== 'number') return undefined;
  const figures: Figures = { fullName, stars, archived: body[fields.archived] === true };
  const pushedAt = body[fields.pushedAt];
  if (typeof pushedAt === 'string') figures.pushedAt = pushedAt;
  const licenseObject = body[fields.license];
  const license = isObject(licenseObject) ? licenseObject[fields.spdxId] : undefined;
  if (typeof license === 'string') figures.license = license;
  return figures;
}

/** The GraphQL query for one batch: `rN` aliases in the order of `repos`. */
export function batchQuery(repos: string[]): string {
  const fields = 'nameWithOwner stargazerCount pushedAt isArchived licenseInfo { spdxId }';
  const aliases = repos.map((repo, i) => {
    const [owner, name] = repo.split('/') as [string, string];
    // JSON string literals are valid GraphQL string literals (and REPO_PATTERN already excludes quotes).
    return `r${i}: repository(owner: ${JSON.stringify(owner)}, name: ${JSON.stringify(name)}) { ${fields} }`;
  });
  return `query { rateLimit { cost remaining resetAt } ${aliases.join(' ')} }`;
}

const endpoint = (base: string, path: string) => `${base.replace(/\/+$/, '')}${path}`;
const graphqlEndpoint = (base: string) => (/\/graphql\/?$/.test(base) ? base.replace(/\/+$/, '') : endpoint(base, '/graphql'));

/** Runs `work` over `items` with at most `concurrency` at once; `stopped()` true ends every worker before its next item. */
async function pool<T>(items: T[], concurrency: number, stopped: () => boolean, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length && !stopped()) await work(items[next++]!);
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
}

export async function fetchGithubMetadata(
  repos: string[],
  entry: GithubSource,
  ctx: SourceContext,
  previous: Map<string, RepoMeta> = new Map(),
  tuning: HttpTuning = {},
): Promise<GithubMetadataResult> {
  const stats = emptyStats();
  const meta = new Map<string, RepoMeta>();
  const asOf = ctx.now.toISOString().slice(0, 10);
  const token = ctx.env[entry.tokenEnv]?.trim() || undefined;
  const wanted: string[] = [];
  for (const repo of new Set(repos)) {
    if (REPO_PATTERN.test(repo)) wanted.push(repo);
    else stats.warnings.push({ where: repo, message: 'not a GitHub owner/repo; skipped' });
  }
  let mode: 'graphql' | 'rest' = entry.mode === 'rest' || (entry.mode === 'auto' && !token) ? 'rest' : 'graphql';
  if (mode === 'graphql' && !token) {
    stats.warnings.push({ where: entry.url, message: `GraphQL needs a token and ${entry.tokenEnv} is not set: reading over REST` });
    mode = 'rest';
  }
  const headers: Record<string, string> = {
    accept: 'application/vnd.github+json',
    'user-agent': 'catalog-collect',
    'x-github-api-version': API_VERSION,
  };
  if (token) headers.authorization = `Bearer ${token}`;
  const http = sourceClient(stats, entry, ctx.signal, headers, tuning);
  const clock = tuning.clock ?? Date.now;

  let stoppedEarly: string | undefined;
  const stop = (why: string) => {
    stoppedEarly ??= why;
  };
  const stopped = () => {
    if (stoppedEarly) return true;
    if (ctx.signal?.aborted) stop('aborted');
    // A request may cost a retry or two more; the budget is checked before each one starts.
    else if (stats.requests >= entry.budget) stop(`the request budget (${entry.budget}) is spent`);
    return stoppedEarly !== undefined;
  };
  // A network that answers nothing (no route, no name, every request timing out) fails each request after its
  // retries; after a few such failures in a row the source stops rather than spend them on every repository.
  let unreachable = 0;
  const failed = (answer: { reason: string; message: string }, where: string) => {
    if (answer.reason === 'rate-limit' || answer.reason === 'aborted') return stop(answer.message);
    stats.warnings.push({ where, message: answer.message });
    if (answer.reason !== 'network' && answer.reason !== 'timeout') return;
    if (++unreachable >= UNREACHABLE_AFTER) stop(`${entry.url} unreachable: ${answer.message}`);
  };
  const answered = () => {
    unreachable = 0;
  };
  // GitHub names are case-insensitive: a caller may key its last known figures by another case than it asks in.
  const previousLower = new Map([...previous].map(([key, value]) => [key.toLowerCase(), value]));
  const lastKnown = (repo: string) => previous.get(repo) ?? previousLower.get(repo.toLowerCase());
  const missing = (repo: string): RepoMeta => {
    const last = lastKnown(repo);
    return {
      repo,
      fullName: last?.fullName ?? repo,
      stars: last?.stars ?? 0,
      archived: last?.archived ?? false,
      ...(last?.pushedAt ? { pushedAt: last.pushedAt } : {}),
      ...(last?.license ? { license: last.license } : {}),
      asOf: last?.asOf ?? asOf,
      missing: true,
    };
  };

  /**
   * After an answer that left the window empty: wait for the reset when that is short, else stop before the next
   * request is refused (a refused request still counts, and repeated ones risk the integration being banned).
   */
  const spendable = async (answer: HttpAnswer): Promise<void> => {
    if (answer.headers.get('x-ratelimit-remaining') !== '0') return;
    const reset = Number(answer.headers.get('x-ratelimit-reset'));
    const wait = Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - clock()) + 1000 : http.maxWaitMs + 1;
    if (!(await http.waitForLimit(wait))) stop(`rate limit used up; it resets in ${Math.ceil(wait / 60_000)} min`);
  };

  ctx.log(`github: ${wanted.length} repositories over ${mode === 'graphql' ? `GraphQL (${entry.batch} a query)` : 'REST'}`);
  if (mode === 'graphql') {
    const url = graphqlEndpoint(entry.url);
    const batches: string[][] = [];
    for (let i = 0; i < wanted.length; i += entry.batch) batches.push(wanted.slice(i, i + entry.batch));
    await pool(batches, entry.concurrency, stopped, async (batch) => {
      for (;;) {
        const answer = await http.request(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ query: batchQuery(batch) }),
        });
        if (!answer.ok) return failed(answer, `${batch[0]} and ${batch.length - 1} more`);
        answered();
        if (answer.status === 401) return stop(`${url} refused the token (401)`);
        const body = answer.status === 200 ? parseJson(answer.text)?.value : undefined;
        if (!isObject(body)) {
          stats.warnings.push({
            where: `${batch[0]} and ${batch.length - 1} more`,
            message: `POST ${url}: answered ${answer.status}${answer.status === 200 ? ' with incomplete JSON' : ''}`,
          });
          return;
        }
        const errors = Array.isArray(body.errors) ? body.errors.filter(isObject) : [];
        const data = isObject(body.data) ? body.data : undefined;
        // GraphQL reports its primary limit as HTTP 200 with an error body and no data.
        const limited = errors.find((e) => e.type === 'RATE_LIMITED' || /rate limit/i.test(String(e.message ?? '')));
        if (limited && !data) {
          const reset = Number(answer.headers.get('x-ratelimit-reset'));
          const wait = Number.isFinite(reset) && reset > 0 ? Math.max(0, reset * 1000 - clock()) + 1000 : 60_000;
          if (await http.waitForLimit(wait)) continue;
          return stop(`GraphQL rate limit: ${String(limited.message ?? 'RATE_LIMITED')}`);
        }
        const errorOf = new Map<string, Json>();
        for (const error of errors) {
          const path = Array.isArray(error.path) ? error.path[0] : undefined;
          if (typeof path === 'string') errorOf.set(path, error);
        }
        batch.forEach((repo, i) => {
          const node = data?.[`r${i}`];
          const figures = isObject(node) ? figuresOf(node, GRAPHQL_FIELDS) : undefined;
          if (figures) return meta.set(repo, { repo, ...figures, asOf });
          const error = errorOf.get(`r${i}`);
          if (error?.type === 'NOT_FOUND') return meta.set(repo, missing(repo));
          stats.warnings.push({ where: repo, message: `GraphQL: ${String(error?.message ?? 'no data for this repository')}` });
        });
        await spendable(answer);
        return;
      }
    });
  } else {
    const store = new ConditionalStore(join(ctx.stateDir, ETAG_FILE));
    const read = async (repo: string, conditional: boolean): Promise<void> => {
      const url = endpoint(entry.url, `/repos/${repo}`);
      const answer = await http.request(url, { headers: conditional ? store.headers(repo) : {} });
      if (!answer.ok) return failed(answer, repo);
      answered();
      if (answer.status === 304) {
        const last = lastKnown(repo) ?? (store.get(repo)?.value as Figures | undefined);
        if (last) {
          const { fullName, stars, archived, pushedAt, license } = last;
          meta.set(repo, { repo, fullName, stars, archived, ...(pushedAt ? { pushedAt } : {}), ...(license ? { license } : {}), asOf });
        } else if (conditional && !stopped()) {
          // A validator without the figures it validated: ask once more, unconditionally.
          store.delete(repo);
          return read(repo, false);
        }
      } else if (answer.status === 200) {
        const body = parseJson(answer.text)?.value;
        const figures = isObject(body) ? figuresOf(body, REST_FIELDS) : undefined;
        if (!figures) stats.warnings.push({ where: repo, message: `GET ${url}: not a repository answer` });
        else {
          meta.set(repo, { repo, ...figures, asOf });
          store.remember(repo, answer.headers, figures);
        }
      } else if (answer.status === 404 || answer.status === 410) {
        store.delete(repo);
        meta.set(repo, missing(repo));
      } else if (answer.status === 401) {
        return stop(`${entry.url} refused the token (401)`);
      } else {
        // 403 without a limit signal, 451 (blocked): this repository only.
        stats.warnings.push({ where: repo, message: `GET ${url}: answered ${answer.status}` });
      }
      await spendable(answer);
    };
    await pool(wanted, entry.concurrency, stopped, (repo) => read(repo, true));
    store.save();
  }
  if (stoppedEarly) {
    const left = wanted.filter((repo) => !meta.has(repo)).length;
    stoppedEarly = `${stoppedEarly}; ${left} repositories left at their last known figures`;
    ctx.log(`github: stopped early: ${stoppedEarly}`);
  }
  return { meta, stats, ...(stoppedEarly ? { stoppedEarly } : {}) };
}
