// How a client connects to an MCP server, from what the listing publishes (src/domain/listing/install-line.ts): the
// transport, the command or URL, the variables it needs, and the configuration the common clients read: an
// `mcpServers` entry (Claude Desktop, Claude Code's .mcp.json, Cursor) and VS Code's `mcp.json` (`servers`, with
// secrets asked for through `inputs` rather than written into the file).
import { commandLine, mcpLaunches, shellWord, type InstallSource, type McpLaunch, type McpVariable } from './install-line.ts';

export interface McpConnection {
  transport: McpLaunch['transport'];
  /** The shell line (stdio) or the URL (remote). */
  target: string;
  variables: McpVariable[];
  /** `{ mcpServers: { <key>: … } }` for Claude Desktop, Claude Code and Cursor. */
  mcpServers: Record<string, unknown>;
  /** VS Code's `.vscode/mcp.json`. */
  vscode: Record<string, unknown>;
  /** `claude mcp add …`, Claude Code's own command. */
  claudeCode: string;
}

const placeholder = (variable: McpVariable) => `<${variable.name}>`;
const inputId = (variable: McpVariable) => variable.name.toLowerCase().replace(/[^a-z0-9]+/g, '-');

function vscodeInputs(variables: McpVariable[]) {
  return variables.filter((v) => v.secret).map((v) => ({ type: 'promptString', id: inputId(v), description: v.description ?? v.name, password: true }));
}

const vscodeValue = (variable: McpVariable) => (variable.secret ? `\${input:${inputId(variable)}}` : placeholder(variable));

/** The connection of one launch under the client key `key` (the listing's slug). */
export function connectionOf(launch: McpLaunch, key: string): McpConnection {
  if (launch.transport === 'stdio') {
    const env = Object.fromEntries(launch.env.map((v) => [v.name, placeholder(v)]));
    const vsEnv = Object.fromEntries(launch.env.map((v) => [v.name, vscodeValue(v)]));
    const entry = { command: launch.command, args: launch.args, ...(launch.env.length > 0 ? { env } : {}) };
    const inputs = vscodeInputs(launch.env);
    return {
      transport: 'stdio',
      target: commandLine(launch),
      variables: launch.env,
      mcpServers: { mcpServers: { [key]: entry } },
      vscode: {
        ...(inputs.length > 0 ? { inputs } : {}),
        servers: { [key]: { type: 'stdio', command: launch.command, args: launch.args, ...(launch.env.length > 0 ? { env: vsEnv } : {}) } },
      },
      claudeCode: [
        'claude mcp add',
        ...launch.env.map((v) => `-e ${shellWord(`${v.name}=${placeholder(v)}`)}`),
        shellWord(key),
        '--',
        commandLine(launch),
      ].join(' '),
    };
  }
  const type = launch.transport === 'sse' ? 'sse' : 'http';
  const headers = Object.fromEntries(launch.headers.map((h) => [h.name, placeholder(h)]));
  const vsHeaders = Object.fromEntries(launch.headers.map((h) => [h.name, vscodeValue(h)]));
  const inputs = vscodeInputs(launch.headers);
  return {
    transport: launch.transport,
    target: launch.url,
    variables: launch.headers,
    mcpServers: { mcpServers: { [key]: { type, url: launch.url, ...(launch.headers.length > 0 ? { headers } : {}) } } },
    vscode: {
      ...(inputs.length > 0 ? { inputs } : {}),
      servers: { [key]: { type, url: launch.url, ...(launch.headers.length > 0 ? { headers: vsHeaders } : {}) } },
    },
    claudeCode: [
      'claude mcp add --transport',
      type,
      ...launch.headers.map((h) => `--header ${shellWord(`${h.name}: ${placeholder(h)}`)}`),
      shellWord(key),
      shellWord(launch.url),
    ].join(' '),
  };
}

/** Every connection an MCP listing publishes (its runnable packages, then its remotes); [] when none is known. */
export function connectionsOf(listing: InstallSource & { slug: string }): McpConnection[] {
  return mcpLaunches(listing).map((launch) => connectionOf(launch, listing.slug));
}
