// Awesome lists parse into one MCP server per linked GitHub repository (with its section's category), and the merge
// makes one listing per identity across sources: the same server named by two lists, by the registry's package,
// or by a monorepo folder is one listing; text is cleaned the snapshot's way; new slugs follow the clash rule.
import { describe, expect, it } from 'vitest';
import { categoryOfHeading, parseAwesomeList, parseGithubUrl } from '../../build/collect/awesome-list-parser.ts';
import { mergeCandidates, previousExportOf, recordOf, slugChoices, continueHistory } from '../../build/collect/merge.ts';
import { identityKeys, packageOfInstallLine, normaliseRemoteUrl } from '../../build/collect/identity.ts';
import { cleanText } from '../../build/collect/text.ts';
import type { Candidate } from '../../build/collect/types.ts';

const LIST = `# Awesome MCP

## Browser Automation

- **[Playwright](https://github.com/microsoft/playwright-mcp)** - Browser automation with **Playwright**. Install: \`npx -y @playwright/mcp\`
- [Puppeteer](https://github.com/modelcontextprotocol/servers/tree/main/src/puppeteer) 🎖️ 📇 - Puppeteer in a [browser](https://pptr.dev).
- [Not GitHub](https://gitlab.com/a/b) - skipped

## Databases

- [owner/pg-mcp](https://github.com/owner/pg-mcp): PostgreSQL.
- [Another list](https://github.com/someone/awesome-things) - a list, not a server
- [Everything](src/everything) - relative to the list's repository
`;

describe('awesome lists', () => {
  it('finds one server per GitHub link with its section category, install line and monorepo folder', () => {
    const parsed = parseAwesomeList(LIST, { repo: 'someone/awesome-mcp', path: 'README.md', commit: 'abcdefabcdef' });
    expect(parsed.skipped).toBe(1);
    expect(parsed.candidates.map((c) => [c.name, c.repo, c.path, c.categories?.[0]])).toEqual([
      ['Playwright', 'microsoft/playwright-mcp', undefined, 'browser-automation'],
      ['Puppeteer', 'modelcontextprotocol/servers', 'src/puppeteer', 'browser-automation'],
      ['pg-mcp', 'owner/pg-mcp', undefined, 'databases'],
      ['Everything', 'someone/awesome-mcp', 'src/everything', 'databases'],
    ]);
    expect(parsed.candidates[0]).toMatchObject({
      installCommand: 'npx -y @playwright/mcp',
      origin: { repo: 'someone/awesome-mcp', path: 'README.md', commit: 'abcdefabcdef' },
    });
    expect(cleanText(parsed.candidates[1]!.description)).toBe('Puppeteer in a browser.');
  });

  it.each([
    ['https://github.com/a/b', { repo: 'a/b' }],
    ['https://github.com/a/b.git', { repo: 'a/b' }],
    ['https://github.com/a/b/tree/main/src/x/', { repo: 'a/b', folder: 'src/x' }],
    ['https://github.com/a/b#readme', { repo: 'a/b' }],
    ['https://example.com/a/b', undefined],
  ])('parses %s', (url, expected) => expect(parseGithubUrl(url)).toEqual(expected));

  it('maps list headings and category files as the snapshot did', () => {
    expect(categoryOfHeading('databases')).toBe('databases');
    expect(categoryOfHeading('browser-automation--web-scraping')).toBe('browser-automation');
    expect(categoryOfHeading('Something Unheard Of')).toBeUndefined();
  });
});

describe('identity and merge', () => {
  const now = new Date('2026-11-20T00:00:00Z');
  const merge = (
    sources: Array<{ kind: 'git' | 'mcp-registry' | 'awesome-list' | 'export'; candidates: Candidate[] }>,
    previous: Array<Record<string, unknown>> = [],
  ) => {
    const result = mergeCandidates({
      sources: sources.map((s, i) => ({ sourceId: `s${i}`, ...s })),
      previous: previousExportOf(previous.map((record) => JSON.stringify(record))),
      repoMeta: new Map(),
      installs: new Map(),
      now,
    });
    return result.listings.map((listing) => recordOf(result, listing));
  };

  it('reads packages from install lines and normalises remotes', () => {
    expect(packageOfInstallLine('npx -y @modelcontextprotocol/server-everything')).toEqual({
      registryType: 'npm',
      identifier: '@modelcontextprotocol/server-everything',
    });
    expect(packageOfInstallLine('uvx mcp-server-git')).toEqual({ registryType: 'pypi', identifier: 'mcp-server-git' });
    expect(packageOfInstallLine('docker run -i --rm mcp/github')).toEqual({ registryType: 'oci', identifier: 'mcp/github' });
    expect(normaliseRemoteUrl('https://mcp.sentry.dev/mcp/')).toBe('sentry.dev/mcp');
  });

  it('one server named by two lists and the registry is one listing; two servers of one list in one repository stay two', () => {
    const listA: Candidate[] = [
      { type: 'mcp', name: 'Sentry', description: 'Errors', repo: 'getsentry/sentry-mcp', origin: { repo: 'x/list-a', path: 'README.md' } },
      { type: 'mcp', name: 'Fetch', repo: 'modelcontextprotocol/servers', path: 'src/fetch', origin: { repo: 'x/list-a', path: 'README.md' } },
      { type: 'mcp', name: 'Git', repo: 'modelcontextprotocol/servers', path: 'src/git', origin: { repo: 'x/list-a', path: 'README.md' } },
    ];
    const listB: Candidate[] = [{ type: 'mcp', name: 'sentry-mcp', repo: 'getsentry/sentry-mcp', origin: { repo: 'y/list-b', path: 'docs/monitoring.md' } }];
    const registry: Candidate[] = [
      {
        type: 'mcp',
        name: 'Sentry MCP',
        description: 'Official Sentry server',
        repo: 'getsentry/sentry-mcp',
        registryName: 'io.github.getsentry/sentry-mcp',
        remotes: [{ type: 'streamable-http', url: 'https://mcp.sentry.dev/mcp' }],
      },
    ];
    const result = merge([
      { kind: 'awesome-list', candidates: listA },
      { kind: 'awesome-list', candidates: listB },
      { kind: 'mcp-registry', candidates: registry },
    ]);
    expect(result).toHaveLength(3);
    const sentry = result.find((record) => record.repo === 'getsentry/sentry-mcp')!;
    // The registry outranks the lists for text; both lists are kept as where it is listed.
    expect(sentry).toMatchObject({ name: 'Sentry MCP', description: 'Official Sentry server', registryName: 'io.github.getsentry/sentry-mcp' });
    expect(sentry.source).toEqual({ repo: 'x/list-a', path: 'README.md' });
    expect(sentry.alsoListedIn).toEqual(['y/list-b docs/monitoring.md']);
    expect(result.filter((record) => record.repo === 'modelcontextprotocol/servers').map((record) => record.slug)).toEqual(['fetch', 'git']);
  });

  it('a previous record keeps its id and slug; new clashes take name-type, owner-name, then owner-repo-name', () => {
    expect(slugChoices('mcp', 'GitHub', 'acme/tools')).toEqual(['github', 'github-mcp', 'acme-github', 'acme-tools-github']);
    const previous = [{ id: 'mcp:acme/gh#github', slug: 'github', type: 'mcp', name: 'GitHub', repo: 'acme/gh' }];
    const result = merge(
      [
        {
          kind: 'awesome-list',
          candidates: [
            { type: 'mcp', name: 'GitHub', repo: 'acme/gh' },
            { type: 'mcp', name: 'GitHub', repo: 'other/gh' },
          ],
        },
      ],
      previous,
    );
    expect(result.map((record) => [record.id, record.slug])).toEqual([
      ['mcp:acme/gh#github', 'github'],
      ['mcp:other/gh#github-mcp', 'github-mcp'],
    ]);
  });

  it('a new install count continues the window (interpolated between measured days), never decreasing', () => {
    expect(continueHistory([10, 20], '2026-04-16', 50, '2026-04-19')).toEqual({ history: [10, 20, 30, 40, 50], interpolated: true });
    expect(continueHistory([10, 20], '2026-04-16', 25, '2026-04-17')).toEqual({ history: [10, 20, 25], interpolated: false });
    expect(continueHistory(undefined, undefined, 7, '2026-04-17')).toEqual({ history: [7, 7], interpolated: false });
    expect(continueHistory([10, 20], '2026-04-16', 5, '2026-04-17').history).toEqual([5, 5]);
  });

  it('gives a registry server the install line of its first package', () => {
    const registry: Candidate[] = [
      {
        type: 'mcp',
        name: 'Time',
        repo: 'acme/time',
        registryName: 'io.github.acme/time',
        packages: [{ registryType: 'pypi', identifier: 'mcp-server-time', transport: { type: 'stdio' } }],
      },
      {
        type: 'mcp',
        name: 'Remote only',
        repo: 'acme/remote',
        registryName: 'io.github.acme/remote',
        remotes: [{ type: 'streamable-http', url: 'https://mcp.acme.dev/mcp' }],
      },
    ];
    const [time, remote] = merge([{ kind: 'mcp-registry', candidates: registry }]);
    expect(time).toMatchObject({ installCommand: 'uvx mcp-server-time', packages: [{ registryType: 'pypi', identifier: 'mcp-server-time' }] });
    expect(remote!.installCommand).toBeUndefined();
    expect(remote).toMatchObject({ remotes: [{ type: 'streamable-http', url: 'https://mcp.acme.dev/mcp' }] });
  });

  it('gives the identity keys strongest first', () => {
    expect(identityKeys({ type: 'skill', repo: 'A/B', name: 'My Skill', path: 'skills/x/SKILL.md' })).toEqual([
      'skill|a/b|skills/x/skill.md',
      'skill|a/b|name:my-skill',
    ]);
  });
});
