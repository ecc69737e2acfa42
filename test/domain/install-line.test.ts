// Install lines are made in one place from the listing: a skill's line names the skill, an MCP server's runs its
// package (npm → npx -y, PyPI → uvx, OCI → docker run -i --rm) with the variables it needs, marketplaces, plugins
// and workflows keep their published line; over the whole embedded snapshot, no skill line leaves out its name.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { installLineOf, mcpLaunches, packageOf, shellWord, THIRD_PARTY_SKILLS_INSTALLER } from '../../src/domain/listing/install-line.ts';
import { toStoredListing } from '../../src/domain/listing/listing-view.ts';
import { ListingRecordSchema, type McpPackage } from '../../src/domain/schemas.ts';

const mcp = (installCommand?: string, extra: { packages?: McpPackage[]; remotes?: { type: string; url: string }[] } = {}) => ({
  type: 'mcp' as const,
  repo: 'a/b',
  name: 'B',
  installCommand,
  ...extra,
});

describe('a skill', () => {
  it.each([
    ['slack', 'npx skills add vercel-labs/agent-browser --skill slack'],
    ['react%3Acomponents', 'npx skills add vercel-labs/agent-browser --skill react:components'],
    ['frontend responsive design', "npx skills add vercel-labs/agent-browser --skill 'frontend responsive design'"],
    ["it's", "npx skills add vercel-labs/agent-browser --skill 'it'\\''s'"],
  ])('%j is installed by its own name through the third-party skills CLI', (name, command) => {
    expect(installLineOf({ type: 'skill', repo: 'vercel-labs/agent-browser', name, installCommand: 'npx skills add vercel-labs/agent-browser' })).toEqual({
      command,
      installer: THIRD_PARTY_SKILLS_INSTALLER,
    });
  });
});

describe('an MCP server', () => {
  it.each([
    ['npx @agentage/find-mcp', 'npx -y @agentage/find-mcp'],
    ['npx -y evidrift@0.3.3 mcp', 'npx -y evidrift@0.3.3 mcp'],
    ['npm install -g goodmemory@0.7.5', 'npx -y goodmemory@0.7.5'],
    ['npx -y -p @webability/mcp webability-mcp', 'npx -y --package @webability/mcp webability-mcp'],
    ['uvx mcp-server-git', 'uvx mcp-server-git'],
    ['pip install mcp-server-fetch==1.2.0', 'uvx mcp-server-fetch==1.2.0'],
    ['pip install "whoosh3[mcp]"', "uvx --from 'whoosh3[mcp]' whoosh3"],
    ['uvx --from "inspeximus[mcp]" inspeximus-mcp', "uvx --from 'inspeximus[mcp]' inspeximus-mcp"],
    ['docker run --rm -i mcp/sqlite', 'docker run -i --rm mcp/sqlite'],
    ['docker run -i --rm -e GITHUB_TOKEN mcp/github:1.0', 'docker run -i --rm -e GITHUB_TOKEN mcp/github:1.0'],
  ])('%s runs as %s', (published, command) => {
    expect(installLineOf(mcp(published))).toEqual({ command });
  });

  it.each([
    ['a skills install on an MCP listing', 'npx skills add a/b'],
    ['a chain of commands', 'pip install compartment && compartment init'],
    ['a local checkout', 'pip install .'],
    ['a GitHub shorthand, not a registry package', 'npx -y TBXark/mcp-proxy'],
    ['an npm name given to docker', 'docker run -i --rm @gongrzhe/server-redis-mcp'],
    ['nothing', undefined],
  ])('%s gives no line', (_, published) => {
    expect(installLineOf(mcp(published))).toBeUndefined();
  });

  it('prefers the packages a source published over the export line, with their variables', () => {
    const packages: McpPackage[] = [
      {
        registryType: 'npm',
        identifier: '@acme/mcp',
        version: '2.0.0',
        transport: { type: 'stdio' },
        environmentVariables: [{ name: 'ACME_TOKEN', isRequired: true, isSecret: true }],
      },
    ];
    const [launch] = mcpLaunches(mcp('npx -y something-else', { packages }));
    expect(launch).toMatchObject({
      transport: 'stdio',
      command: 'npx',
      args: ['-y', '@acme/mcp@2.0.0'],
      env: [{ name: 'ACME_TOKEN', required: true, secret: true }],
    });
    expect(installLineOf(mcp(undefined, { packages }))).toEqual({ command: 'npx -y @acme/mcp@2.0.0' });
  });

  it('reaches a remote by its URL, and has no install line for it', () => {
    const remotes = [{ type: 'streamable-http', url: 'https://mcp.example.com/mcp' }];
    expect(mcpLaunches(mcp(undefined, { remotes }))).toEqual([{ transport: 'streamable-http', url: 'https://mcp.example.com/mcp', headers: [] }]);
    expect(installLineOf(mcp(undefined, { remotes }))).toBeUndefined();
  });

  it('a docker line names its -e variables as required', () => {
    expect(packageOf('docker run -i --rm -e GITHUB_TOKEN -e LOG_LEVEL=info mcp/github')?.environmentVariables).toEqual([
      { name: 'GITHUB_TOKEN', isRequired: true, isSecret: true },
      { name: 'LOG_LEVEL', isRequired: true, isSecret: false },
    ]);
  });
});

describe('marketplaces, plugins and workflows', () => {
  it.each([
    ['marketplace', '/plugin marketplace add anthropics/claude-plugins-official'],
    ['plugin', '/plugin install lua-lsp@claude-plugins-official'],
    ['workflow', 'gh aw add github/awesome-copilot/workflows/daily-issues-report'],
  ] as const)('a %s keeps its published line', (type, command) => {
    expect(installLineOf({ type, repo: 'a/b', name: 'x', installCommand: command })).toEqual({ command });
  });
});

describe('shell words', () => {
  it.each([
    ['plain-word_1.2', 'plain-word_1.2'],
    ['two words', "'two words'"],
    ['', "''"],
    ['$HOME', "'$HOME'"],
  ])('%j → %s', (word, quoted) => {
    expect(shellWord(word)).toBe(quoted);
  });
});

describe('the embedded snapshot', () => {
  const records = readFileSync('data/listings.jsonl', 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => ListingRecordSchema.parse(JSON.parse(line)));
  const served = records.map((record) => ({ record, listing: toStoredListing(record, { trending: 0, searchTrend: 0 }) }));

  it('has 0 skills whose install line leaves out the skill', () => {
    const skills = served.filter(({ record }) => record.type === 'skill');
    expect(skills.length).toBeGreaterThan(10_000);
    const unnamed = skills.filter(({ listing }) => !listing.installCommand?.startsWith(`npx skills add ${listing.repo} --skill `));
    expect(unnamed.map(({ listing }) => listing.id)).toEqual([]);
  });

  it('gives a line to every MCP server whose published line names a registry package, from that package', () => {
    const named = served.filter(({ record }) => record.type === 'mcp' && packageOf(record.installCommand));
    expect(named.length).toBeGreaterThan(400);
    for (const { listing } of named) {
      expect(listing.packages).toHaveLength(1);
      expect(listing.installCommand).toMatch(/^(npx -y|uvx|docker run -i --rm) /);
    }
  });
});
