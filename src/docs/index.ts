// The docs pages, one Markdown file each with YAML front matter. One source for the /docs pages of the
// site, llms-full.txt and the docs MCP surface (search_docs, get_doc, list_docs).
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse as parseYaml } from 'yaml';

export interface Doc {
  slug: string;
  title: string;
  description: string;
  order: number;
  /** Markdown body without the front matter. */
  body: string;
  /** Site path of the rendered page. */
  path: string;
}

const DOCS_DIR = dirname(fileURLToPath(import.meta.url));

export function loadDocs(dir: string = DOCS_DIR): Doc[] {
  return readdirSync(dir)
    .filter((file) => file.endsWith('.md'))
    .map((file) => {
      const text = readFileSync(join(dir, file), 'utf8');
      const match = /^---\n([\s\S]*?)\n---\n?([\s\S]*)$/.exec(text);
      if (!match) throw new Error(`${file}: missing front matter`);
      const front = parseYaml(match[1]!) as { title?: string; description?: string; order?: number };
      if (!front.title || !front.description) throw new Error(`${file}: front matter needs title and description`);
      const slug = file.slice(0, -3);
      return { slug, title: front.title, description: front.description, order: front.order ?? 100, body: match[2]!.trim(), path: `/docs/${slug}/` };
    })
    .sort((a, b) => a.order - b.order || a.slug.localeCompare(b.slug));
}
