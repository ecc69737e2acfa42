// Small Markdown helpers for the generated text files: listing text is untrusted (names and descriptions come from
// public repositories), so it is flattened to one line and escaped before it lands in a link or a table cell.

/** One line, collapsed whitespace, at most `max` characters (cut at a word, with an ellipsis). */
export function oneLine(text: string, max = 200): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}

/** Untrusted text as one inert line: no link, image, HTML or code span can start inside it. */
export function inlineText(text: string, max = 200): string {
  return oneLine(text, max).replace(/([\\[\]`<>])/g, '\\$1');
}

/** Text safe inside [link text]. */
export function linkText(text: string): string {
  return oneLine(text, 120).replace(/([\\[\]`*_<>])/g, '\\$1');
}

/** Untrusted text safe inside a table cell. */
export function cell(text: string, max = 200): string {
  return inlineText(text, max).replace(/\|/g, '\\|');
}

export function link(text: string, url: string): string {
  return `[${linkText(text)}](${url})`;
}

export function formatCount(n: number): string {
  return n.toLocaleString('en-US');
}

/** Applies `edit` to each line outside fenced code blocks (``` or ~~~). */
function outsideFences(markdown: string, edit: (line: string) => string): string {
  let fence: string | undefined;
  return markdown
    .split('\n')
    .map((line) => {
      const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
      if (marker && (!fence || marker.startsWith(fence))) {
        fence = fence ? undefined : marker;
        return line;
      }
      return fence ? line : edit(line);
    })
    .join('\n');
}

/** Root-relative link targets ("](/docs/api/)") made absolute, so the text works outside the site. */
export function absolutizeLinks(markdown: string, baseUrl: string): string {
  return outsideFences(markdown, (line) => line.replace(/\]\((\/[^)\s]*)\)/g, (_, path: string) => `](${baseUrl}${path})`));
}

/** Every ATX heading `levels` deeper (max h6), so a whole document nests under a section of another. */
export function demoteHeadings(markdown: string, levels: number): string {
  return outsideFences(markdown, (line) => line.replace(/^(#{1,6})(?=\s)/, (hashes) => '#'.repeat(Math.min(6, hashes.length + levels))));
}

/** The body without its leading h1 (the caller prints its own title). */
export function withoutTitle(markdown: string): string {
  return markdown.replace(/^#\s[^\n]*\n+/, '');
}

export function table(header: string[], align: Array<'left' | 'right'>, rows: string[][]): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(align.map((a) => (a === 'right' ? '---:' : '---'))), ...rows.map(line)].join('\n');
}
