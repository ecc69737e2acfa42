// SKILL.md as a listing page shows it: Markdown rendered at build time by markdown-it with raw HTML disabled
// (a tag in the file is shown as text, never run: the file is third-party content), links only to http(s),
// mailto and in-page anchors, and fenced code highlighted by highlight.js into class-based spans (the site's
// Content-Security-Policy allows no inline styles; the colours are in site.css). The YAML front matter is
// metadata the page already shows (name, description), so it is left out of the rendering.
import hljs from 'highlight.js';
import MarkdownIt from 'markdown-it';

const FRONT_MATTER = /^---\r?\n[\s\S]*?\r?\n---\r?\n?/;
const SAFE_LINK = /^(https?:|mailto:|#)/i;

function highlight(code: string, lang: string): string {
  const language = lang.trim().split(/\s+/)[0]?.toLowerCase() ?? '';
  if (!language || !hljs.getLanguage(language)) return '';
  // An empty string tells markdown-it to escape the code itself.
  return hljs.highlight(code, { language, ignoreIllegals: true }).value;
}

const markdown = new MarkdownIt({ html: false, linkify: true, typographer: false, highlight });
markdown.validateLink = (url) => SAFE_LINK.test(url.trim());
// Third-party links: no referrer, and no ranking credit from the catalog.
const defaultLinkOpen = markdown.renderer.rules.link_open ?? ((tokens, idx, options, _env, self) => self.renderToken(tokens, idx, options));
markdown.renderer.rules.link_open = (tokens, idx, options, env, self) => {
  const token = tokens[idx]!;
  if (!token.attrGet('href')?.startsWith('#')) token.attrSet('rel', 'nofollow noopener noreferrer');
  return defaultLinkOpen(tokens, idx, options, env, self);
};
// Headings inside the file start at h3: the page's own h1 and h2 ("SKILL.md") stay its outline.
markdown.renderer.rules.heading_open = (tokens, idx, options, _env, self) => {
  const token = tokens[idx]!;
  const level = Math.min(6, Number(token.tag.slice(1)) + 2);
  token.tag = `h${level}`;
  return self.renderToken(tokens, idx, options);
};
markdown.renderer.rules.heading_close = (tokens, idx, options, _env, self) => {
  const token = tokens[idx]!;
  token.tag = `h${Math.min(6, Number(token.tag.slice(1)) + 2)}`;
  return self.renderToken(tokens, idx, options);
};

/** The rendered HTML of a SKILL.md (front matter left out). */
export function renderSkillMarkdown(source: string): string {
  return markdown.render(source.replace(FRONT_MATTER, ''));
}
