// A local GitHub API replaying recorded answers (test/collect/fixtures/github/*.json): each route answers the
// recordings it is given in order, the last one again after that, with https://api.github.com rewritten to the
// local origin (a redirect's Location, URLs in bodies). For counting requests over many repositories, GraphQL
// batches and REST reads are answered from the recordings' shape for whatever repositories they ask about.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startScriptServer, type RecordedRequest, type Reply, type ScriptServer } from './script-server.ts';

const DIR = fileURLToPath(new URL('../fixtures/github/', import.meta.url));

export interface Recording {
  request: { method: string; path: string; headers?: Record<string, string> };
  response: { status: number; headers: Record<string, string>; body: unknown };
}

export function recording(name: string): Recording {
  return JSON.parse(readFileSync(join(DIR, `${name}.json`), 'utf8')) as Recording;
}

/** The epoch second every recording's x-ratelimit-reset names (tests set their clock against it). */
export const RECORDED_RESET = Number(recording('rest-anthropics-skills.200').response.headers['x-ratelimit-reset']);

function toReply(rec: Recording, origin: string): Reply {
  const swap = (text: string) => text.replaceAll('https://api.github.com', origin);
  const headers = Object.fromEntries(Object.entries(rec.response.headers).map(([k, v]) => [k, swap(v)]));
  const body = rec.response.body == null ? undefined : swap(JSON.stringify(rec.response.body));
  return { status: rec.response.status, headers, body };
}

/** `routes`: "GET /repos/o/r" → recording names answered in turn. */
export async function startGithubReplay(routes: Record<string, string[]>): Promise<ScriptServer> {
  const turns = new Map<string, number>();
  return startScriptServer((request, { origin }) => {
    const key = `${request.method} ${new URL(request.url, origin).pathname}`;
    const names = routes[key];
    if (!names) return { status: 599, body: { message: `no recording for ${key}` } };
    const turn = turns.get(key) ?? 0;
    turns.set(key, turn + 1);
    return toReply(recording(names[Math.min(turn, names.length - 1)]!), origin);
  });
}

/** The repositories a batch query asks about, in alias order. */
export function aliasesOf(request: RecordedRequest): Array<{ alias: string; repo: string }> {
  const query = (JSON.parse(request.body) as { query: string }).query;
  return [...query.matchAll(/(r\d+): repository\(owner: "([^"]+)", name: "([^"]+)"\)/g)].map((m) => ({ alias: m[1]!, repo: `${m[2]}/${m[3]}` }));
}

/**
 * A GitHub that knows every repository but `missing`: GraphQL batches answered in the shape of
 * graphql-partial.200 (a NOT_FOUND error per missing alias), REST reads in the shape of rest-anthropics-skills.200.
 */
export async function startSyntheticGithub(missing: ReadonlySet<string> = new Set()): Promise<ScriptServer> {
  const graphql = recording('graphql-partial.200');
  const rest = recording('rest-anthropics-skills.200');
  const node = (graphql.response.body as { data: { r0: Record<string, unknown> } }).data.r0;
  return startScriptServer((request, { origin }) => {
    const path = new URL(request.url, origin).pathname;
    if (request.method === 'POST' && path === '/graphql') {
      const data: Record<string, unknown> = { rateLimit: { cost: 1, remaining: 4000, resetAt: '2026-11-27T14:00:00Z' } };
      const errors: unknown[] = [];
      for (const { alias, repo } of aliasesOf(request)) {
        if (missing.has(repo)) {
          data[alias] = null;
          errors.push({ type: 'NOT_FOUND', path: [alias], message: `Could not resolve to a Repository with the name '${repo}'.` });
        } else data[alias] = { ...node, nameWithOwner: repo };
      }
      return { status: 200, headers: graphql.response.headers, body: { data, ...(errors.length ? { errors } : {}) } };
    }
    const match = /^\/repos\/([^/]+\/[^/]+)$/.exec(path);
    if (request.method === 'GET' && match) {
      if (missing.has(match[1]!)) return toReply(recording('rest-not-found.404'), origin);
      return { status: 200, headers: rest.response.headers, body: { ...(rest.response.body as object), full_name: match[1] } };
    }
    return { status: 599, body: { message: `no answer for ${request.method} ${path}` } };
  });
}
