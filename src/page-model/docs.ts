// The docs pages: loadDocs() (the one source the docs MCP and llms-full.txt also read) gives the list, titles and
// order; Astro's Markdown pipeline renders each body. The files are found through the Markdown modules themselves,
// since this module runs from a bundle in the build's output directory, not from src/.
import { dirname } from 'node:path';
import type { MarkdownInstance } from 'astro';
import { loadDocs, type Doc } from '../docs/index.ts';

const modules = import.meta.glob<MarkdownInstance<Record<string, unknown>>>('../docs/*.md', { eager: true });

export interface RenderedDoc extends Doc {
  Content: MarkdownInstance<Record<string, unknown>>['Content'];
}

export function renderedDocs(): RenderedDoc[] {
  const first = Object.values(modules)[0];
  if (!first) throw new Error('no Markdown files in src/docs');
  const bySlug = new Map(Object.values(modules).map((module) => [module.file.slice(module.file.lastIndexOf('/') + 1, -3), module]));
  return loadDocs(dirname(first.file)).map((doc) => {
    const module = bySlug.get(doc.slug);
    if (!module) throw new Error(`src/docs/${doc.slug}.md was not rendered`);
    return { ...doc, Content: module.Content };
  });
}
