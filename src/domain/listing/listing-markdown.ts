// A listing page as Markdown, for agents that ask a page for `Accept: text/markdown`: the same facts as the HTML
// page (figures always with their provenance), plus the stored SKILL.md when there is one.
import { BRAND } from '../brand.ts';
import { categoryLabel } from './categories.ts';
import { RANKING_METRIC, TYPE_LABELS } from './listing-types.ts';
import type { Listing, ListingFile } from '../schemas.ts';

const count = (n: number) => n.toLocaleString('en-US');
/** Markdown-inert text for a table cell or a line: no pipes, no line breaks, no HTML. */
const inline = (text: string) =>
  text
    .replace(/[\r\n]+/g, ' ')
    .replace(/\|/g, '\\|')
    .replace(/</g, '&lt;');

export function listingMarkdown(listing: Listing, files: readonly ListingFile[], apiUrl: string): string {
  const metric = RANKING_METRIC[listing.type];
  const lines = [
    `# ${inline(listing.name)}`,
    '',
    `> ${inline(listing.description) || `${TYPE_LABELS[listing.type].singular} from ${listing.repo}`}`,
    '',
    '| | |',
    '|---|---|',
    `| Type | ${TYPE_LABELS[listing.type].singular} (ranked by ${metric}) |`,
    `| Category | ${listing.categories.map((c) => inline(categoryLabel(c))).join(', ')} |`,
    `| Installs | ${count(listing.installs)} (${listing.metrics.installs}) |`,
    `| Stars | ${count(listing.stars)} (${listing.metrics.stars}) |`,
    `| Repository | [${inline(listing.repo)}](${listing.repoUrl}) |`,
    `| Author | ${inline(listing.author)} |`,
    `| Updated | ${listing.updatedAt} |`,
    `| Id | \`${listing.id}\` |`,
  ];
  if (listing.homepage) lines.push(`| Homepage | ${inline(listing.homepage)} |`);
  if (listing.tags.length > 0) lines.push(`| Tags | ${listing.tags.map(inline).join(', ')} |`);
  if (listing.installCommand) {
    lines.push('', '## Install', '', '```sh', listing.installCommand, '```');
    if (listing.installer) lines.push('', `Provided by: ${inline(listing.installer)}.`);
  }
  const skill = files.find((file) => file.path === 'SKILL.md');
  if (skill) {
    // A fence longer than any backtick run inside keeps the file's own fences from closing it.
    let longest = 2;
    for (const run of skill.content.matchAll(/`+/g)) longest = Math.max(longest, run[0].length);
    const fence = '`'.repeat(longest + 1);
    lines.push('', '## SKILL.md', '', `${fence}markdown`, skill.content.replace(/\n+$/, ''), fence);
    const others = files.filter((file) => file !== skill);
    if (others.length > 0) lines.push('', 'Bundled files: ' + others.map((file) => `\`${inline(file.path)}\``).join(', ') + '.');
  }
  lines.push(
    '',
    '## Links',
    '',
    `- Page: ${listing.url}`,
    `- JSON: ${apiUrl}`,
    '',
    `Figures marked real are measured by a public source; synthetic ones were generated to fill a gap. ${BRAND} is an independent directory.`,
    '',
  );
  return lines.join('\n');
}
