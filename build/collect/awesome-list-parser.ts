// Parsing an awesome list: one MCP server per list item that links a GitHub repository, with the item's name and
// description and its section as the category. Markdown is read with markdown-it (the site's parser), not line
// patterns, so emphasis, badges, <sup> and emoji around a link do not change what is found. A link relative to
// the list (modelcontextprotocol/servers' `src/everything`) is a folder of the list's own repository.
import MarkdownIt from 'markdown-it';
import type Token from 'markdown-it/lib/token.mjs';
import headings from './list-headings.json' with { type: 'json' };
import type { Candidate } from './types.ts';

export interface ListItem {
  name: string;
  description: string;
  url: string;
  heading?: string;
}

export interface ParsedList {
  candidates: Candidate[];
  /** Items whose link is not a GitHub repository (the catalog's records need one). */
  skipped: number;
}

const markdown = new MarkdownIt({ html: true });

/** Category slug of a list heading or category file name, as the snapshot categorised it; undefined when none fits. */
export function categoryOfHeading(label: string | undefined): string | undefined {
  if (!label) return undefined;
  const key = label.trim().toLowerCase();
  const labels = headings.labels as Record<string, string>;
  if (labels[key]) return labels[key];
  for (const [part, category] of headings.rules as Array<[string, string]>) if (key.includes(part)) return category;
  return undefined;
}

/** The GitHub `owner/repo` and monorepo folder of a URL, or undefined. */
export function parseGithubUrl(url: string): { repo: string; folder?: string } | undefined {
  const match =
    /^https?:\/\/(?:www\.)?github\.com\/([A-Za-z0-9][A-Za-z0-9-]*)\/([A-Za-z0-9_.-]+?)(?:\.git)?(?:\/(?:tree|blob)\/[^/]+\/([^?#]+?))?\/?(?:[?#].*)?$/.exec(
      url.trim(),
    );
  if (!match) return undefined;
  return { repo: `${match[1]}/${match[2]}`, ...(match[3] ? { folder: decodeURIComponent(match[3]) } : {}) };
}

const plain = (tokens: Token[]): string =>
  tokens
    // Code keeps its backticks here (an install line is found by them); cleanText removes them later.
    .map((token) => (token.type === 'text' ? token.content : token.type === 'code_inline' ? `\`${token.content}\`` : token.type === 'softbreak' ? ' ' : ''))
    .join('');

/** Every list item that starts with (or holds) a link, with the heading it is under. */
export function listItems(text: string): ListItem[] {
  const tokens = markdown.parse(text, {});
  const items: ListItem[] = [];
  let heading: string | undefined;
  let depth = 0;
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]!;
    if (token.type === 'heading_open') heading = plain(tokens[i + 1]?.children ?? []).trim();
    if (token.type === 'list_item_open') depth++;
    if (token.type === 'list_item_close') depth--;
    if (token.type !== 'inline' || depth === 0 || tokens[i - 1]?.type !== 'paragraph_open') continue;
    const children = token.children ?? [];
    const open = children.findIndex((child) => child.type === 'link_open');
    if (open < 0) continue;
    const close = children.findIndex((child, index) => index > open && child.type === 'link_close');
    const href = children[open]!.attrGet('href') ?? '';
    const name = plain(children.slice(open + 1, close)).trim();
    const rest = plain(children.slice(close + 1))
      .replace(/^[\s\p{Extended_Pictographic}\uFE0F\u200D]*[-\u2013\u2014:|]\s*/u, '')
      .trim();
    if (name && href) items.push({ name, description: rest, url: href, heading });
  }
  return items;
}

/** The MCP server candidates of one list file. `fileCategory`: the category of the whole file (TensorBlock's docs/<category>.md). */
export function parseAwesomeList(
  text: string,
  list: { repo: string; path: string; commit?: string; ref?: string; updatedAt?: string; category?: string },
): ParsedList {
  const candidates: Candidate[] = [];
  let skipped = 0;
  const fileCategory = list.category ?? categoryOfHeading(list.path.replace(/^.*\//, '').replace(/\.md$/i, ''));
  for (const item of listItems(text)) {
    const relative = !/^[a-z][a-z0-9+.-]*:/i.test(item.url) && !item.url.startsWith('#') && !item.url.startsWith('/');
    const github = relative ? { repo: list.repo, folder: item.url.replace(/^\.\//, '').replace(/\/+$/, '') } : parseGithubUrl(item.url);
    if (!github) {
      skipped++;
      continue;
    }
    const name = github.repo.split('/')[1]!.toLowerCase();
    // A link to a list, or to the list itself, is not a server.
    if (!github.folder && (name.startsWith('awesome') || github.repo.toLowerCase() === list.repo.toLowerCase())) continue;
    const category = fileCategory ?? categoryOfHeading(item.heading);
    let itemName = item.name.replace(/\*\*/g, '').trim();
    if (itemName.toLowerCase().startsWith(`${github.repo.split('/')[0]!.toLowerCase()}/`)) itemName = itemName.slice(itemName.indexOf('/') + 1);
    const install = /Install(?: with)?:\s*`((?:npx|uvx|pip install|npm install -g|docker run|pipx install)[^`]+)`/.exec(item.description)?.[1]?.trim();
    candidates.push({
      type: 'mcp',
      name: itemName,
      description: item.description,
      repo: github.repo,
      ...(github.folder ? { path: github.folder } : {}),
      ...(list.commit ? { commit: list.commit } : {}),
      ...(list.updatedAt ? { updatedAt: list.updatedAt } : {}),
      ...(category ? { categories: [category] } : {}),
      ...(install ? { installCommand: install } : {}),
      // A server in a monorepo folder: its folder's page is its home, and names its identity in the record.
      homepage: relative ? `https://github.com/${list.repo}/tree/${list.ref ?? 'main'}/${github.folder}` : github.folder ? item.url : undefined,
      origin: { repo: list.repo, path: list.path, ...(list.commit ? { commit: list.commit } : {}) },
    });
  }
  return { candidates, skipped };
}
