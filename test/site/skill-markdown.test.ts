// Guarantees SKILL.md is rendered as safe HTML (src/page-model/skill-markdown.ts): raw HTML in the file is shown as
// text and never becomes markup, only http(s)/mailto/anchor links survive and third-party links carry rel
// nofollow, code blocks are highlighted into class-based spans (no inline styles: the CSP forbids them), the
// front matter is left out, and the file's headings sit below the page's own h1 and h2.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { renderSkillMarkdown } from '../../src/page-model/skill-markdown.ts';

describe('renderSkillMarkdown', () => {
  it('never turns the file’s HTML into markup', () => {
    const html = renderSkillMarkdown('Hello <script>alert(1)</script> <img src=x onerror=alert(2)>\n\n<iframe src="https://evil.test"></iframe>');
    expect(html).not.toMatch(/<script|<img|<iframe|<[^>]*onerror/i);
    expect(html).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
  });

  it('keeps only safe links, marked as third-party', () => {
    const html = renderSkillMarkdown('[site](https://example.com) [x](javascript:alert(1)) [d](data:text/html,hi) [top](#usage) <mailto:a@b.test>');
    expect(html).toContain('<a href="https://example.com" rel="nofollow noopener noreferrer">site</a>');
    expect(html).toContain('<a href="#usage">top</a>');
    expect(html).toContain('href="mailto:a@b.test"');
    expect(html).not.toMatch(/href="(javascript|data):/);
  });

  it('highlights fenced code by language into classes, and escapes code of unknown languages', () => {
    const html = renderSkillMarkdown('```ts\nconst x: number = 1; // one\n```\n\n```nosuchlang\n<b>a</b>\n```');
    expect(html).toContain('<span class="hljs-keyword">const</span>');
    expect(html).toContain('<span class="hljs-comment">// one</span>');
    expect(html).toContain('&lt;b&gt;a&lt;/b&gt;');
    expect(html).not.toContain('style=');
  });

  it('leaves the front matter out and starts the file’s headings at h3', () => {
    const html = renderSkillMarkdown('---\nname: demo\ndescription: a demo\n---\n\n# Demo\n\n## Usage\n\nText.');
    expect(html).not.toContain('name: demo');
    expect(html).toContain('<h3>Demo</h3>');
    expect(html).toContain('<h4>Usage</h4>');
    expect(html).toContain('<p>Text.</p>');
  });

  it('renders every stored SKILL.md of the snapshot without raw markup', () => {
    const lines = readFileSync('data/listings.jsonl', 'utf8').split('\n').filter(Boolean);
    let rendered = 0;
    for (const line of lines) {
      const listing = JSON.parse(line) as { slug: string; files?: string[] };
      if (!listing.files?.includes('SKILL.md')) continue;
      const html = renderSkillMarkdown(readFileSync(`data/files/${listing.slug}/SKILL.md`, 'utf8'));
      expect(html, listing.slug).not.toMatch(/<(script|iframe|object|embed|style|form)\b/i);
      expect(html, listing.slug).not.toMatch(/<[a-z][^>]*\son[a-z]+=/i);
      rendered++;
    }
    expect(rendered).toBeGreaterThan(100);
  });
});
