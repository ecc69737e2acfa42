// The one place that says how to install or run a listing. Skills name the skill, so the skills CLI installs that
// one skill rather than offering every skill of the repository; MCP servers run their package (npm → npx, PyPI →
// uvx, OCI → docker run) or connect to their remote. The export's own `installCommand` is read as a hint of the
// package, never shown as is: a line is made again from the package it names.
import type { McpPackage, McpRemote } from '../schemas.ts';

export const THIRD_PARTY_SKILLS_INSTALLER = 'third-party skills CLI (not part of catalog)';

/** What a line needs from a listing record (or a stored listing). */
export interface InstallSource {
  type: 'skill' | 'marketplace' | 'plugin' | 'mcp' | 'workflow';
  repo: string;
  name: string;
  installCommand?: string | undefined;
  packages?: readonly McpPackage[] | undefined;
  remotes?: readonly McpRemote[] | undefined;
}

export interface InstallLine {
  command: string;
  /** Who provides the command when it is not the listing's own (the skills CLI). */
  installer?: string;
}

/** How a client starts or reaches an MCP server: a local process over stdio, or a remote URL. */
export type McpLaunch =
  | { transport: 'stdio'; command: string; args: string[]; env: McpVariable[]; package: McpPackage }
  | { transport: 'streamable-http' | 'sse'; url: string; headers: McpVariable[] };

export interface McpVariable {
  name: string;
  description?: string | undefined;
  required: boolean;
  secret: boolean;
}

const SAFE_WORD = /^[A-Za-z0-9@%+=:,./_-]+$/;

/** A word as a POSIX shell reads it back: bare when it holds no special character, else single-quoted. */
export function shellWord(word: string): string {
  if (word !== '' && SAFE_WORD.test(word)) return word;
  return `'${word.replaceAll("'", `'\\''`)}'`;
}

/** Some sources give a skill's front-matter name percent-encoded ("react%3Acomponents"); the CLI matches it decoded. */
function skillName(name: string): string {
  try {
    return decodeURIComponent(name);
  } catch {
    return name;
  }
}

/** Splits a command line into words, honouring single and double quotes (no expansions). */
function shellWords(line: string): string[] {
  const words: string[] = [];
  const re = /"((?:[^"\\]|\\.)*)"|'([^']*)'|(\S+)/g;
  for (const match of line.matchAll(re)) words.push(match[1] ?? match[2] ?? match[3]!);
  return words;
}

const NPM_NAME = /^(?:@[a-z0-9][\w.-]*\/)?[a-z0-9][\w.-]*$/i;
const PYPI_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*(?:\[[A-Za-z0-9,._-]+\])?$/;
const OCI_IMAGE = /^[a-z0-9]+(?:[._/-][a-z0-9]+)*(?::[\w.-]+)?$/;

function splitVersion(spec: string, separator: '@' | '==' | ':'): { identifier: string; version?: string } {
  const at = separator === '==' ? spec.indexOf('==') : spec.lastIndexOf(separator);
  if (at <= 0 || (separator === ':' && spec.indexOf('/', at) >= 0)) return { identifier: spec };
  const version = spec.slice(at + separator.length);
  return version && version !== 'latest' ? { identifier: spec.slice(0, at), version } : { identifier: spec.slice(0, at) };
}

function stdioPackage(
  registryType: string,
  registryBaseUrl: string,
  spec: { identifier: string; version?: string },
  runtimeHint: string,
  args: string[],
  env: McpVariable[] = [],
): McpPackage {
  const pkg: McpPackage = { registryType, registryBaseUrl, identifier: spec.identifier, runtimeHint, transport: { type: 'stdio' } };
  if (spec.version) pkg.version = spec.version;
  if (args.length > 0) pkg.packageArguments = args.map((value) => ({ type: 'positional', value }));
  if (env.length > 0) pkg.environmentVariables = env.map((v) => ({ name: v.name, isRequired: v.required, isSecret: v.secret }));
  return pkg;
}

/** Names that read as credentials: a client must keep them out of shared configuration. */
const SECRET_NAME = /TOKEN|SECRET|KEY|PASSWORD|PASS\b|CREDENTIAL/i;

/**
 * The package an export's install line runs, in the official registry's `packages` shape (npx/npm, uvx/pip,
 * docker run), with the arguments after the package and the environment variables a `docker run -e` passes.
 * Undefined for lines that run no package (git clone, a build script, a skills install on an MCP listing).
 */
export function packageOf(installCommand: string | undefined): McpPackage | undefined {
  if (!installCommand || /&&|\|\||;|\|/.test(installCommand)) return undefined;
  const words = shellWords(installCommand.trim());
  const [command, sub] = words;
  if (command === 'npx' || (command === 'npm' && (sub === 'install' || sub === 'i') && words.includes('-g'))) {
    let rest = words.slice(command === 'npx' ? 1 : 2).filter((w) => w !== '-y' && w !== '--yes' && w !== '-g' && w !== '--global');
    let bin: string | undefined;
    if (rest[0] === '-p' || rest[0] === '--package') {
      bin = rest[2];
      rest = [rest[1]!, ...rest.slice(3)];
    } else if (rest[0]?.startsWith('--package=')) {
      bin = rest[1];
      rest = [rest[0].slice('--package='.length), ...rest.slice(2)];
    }
    const spec = rest[0];
    if (!spec || spec.startsWith('-')) return undefined;
    const parsed = splitVersion(spec, '@');
    if (!NPM_NAME.test(parsed.identifier) || parsed.identifier === 'skills') return undefined;
    const args = command === 'npm' ? [] : rest.slice(1);
    const pkg = stdioPackage('npm', 'https://registry.npmjs.org', parsed, 'npx', args);
    if (bin)
      pkg.runtimeArguments = [
        { type: 'named', name: '--package', value: spec },
        { type: 'positional', value: bin },
      ];
    return pkg;
  }
  if (command === 'uvx' || (command === 'pip' && sub === 'install')) {
    let rest = words.slice(command === 'uvx' ? 1 : 2);
    let bin: string | undefined;
    if (rest[0] === '--from') {
      bin = rest[2];
      rest = [rest[1]!, ...rest.slice(3)];
    }
    const spec = rest[0];
    if (!spec || spec.startsWith('-')) return undefined;
    const parsed = splitVersion(spec, '==');
    if (!PYPI_NAME.test(parsed.identifier)) return undefined;
    const extras = parsed.identifier.indexOf('[');
    const base = extras > 0 ? { ...parsed, identifier: parsed.identifier.slice(0, extras) } : parsed;
    // uvx runs the executable named like the package; extras or another executable need the package given with --from.
    if (extras > 0) bin ??= base.identifier;
    const args = command === 'pip' ? [] : rest.slice(1);
    const pkg = stdioPackage('pypi', 'https://pypi.org', base, 'uvx', args);
    if (bin)
      pkg.runtimeArguments = [
        { type: 'named', name: '--from', value: spec },
        { type: 'positional', value: bin },
      ];
    return pkg;
  }
  if (command === 'docker' && sub === 'run') {
    const env: McpVariable[] = [];
    let i = 2;
    // Options come first; the image is the first word that is not an option or an option's value.
    for (; i < words.length && words[i]!.startsWith('-'); i++) {
      const option = words[i]!;
      if (option === '-e' || option === '--env') {
        const name = words[++i]?.split('=')[0];
        if (name && /^[A-Za-z_][A-Za-z0-9_]*$/.test(name)) env.push({ name, required: true, secret: SECRET_NAME.test(name) });
      } else if (/^(?:-v|--volume|--name|--network|-p|--publish|-w|--workdir|--entrypoint|--env-file|-u|--user)$/.test(option)) i++;
    }
    const image = words[i];
    if (!image || !OCI_IMAGE.test(image)) return undefined;
    return stdioPackage('oci', 'https://docker.io', splitVersion(image, ':'), 'docker', words.slice(i + 1), env);
  }
  return undefined;
}

function variables(inputs: McpPackage['environmentVariables']): McpVariable[] {
  return (inputs ?? []).map((v) => ({ name: v.name, description: v.description, required: v.isRequired ?? false, secret: v.isSecret ?? false }));
}

function positional(list: McpPackage['packageArguments']): string[] {
  return (list ?? []).flatMap((arg) => {
    const value = typeof arg.value === 'string' ? arg.value : typeof arg.default === 'string' ? arg.default : undefined;
    if (arg.type === 'named' && typeof arg.name === 'string') return value === undefined ? [arg.name] : [arg.name, value];
    return value === undefined ? [] : [value];
  });
}

/** How a client starts a package: npx for npm, uvx for PyPI, docker run for OCI images; undefined for others. */
export function launchOfPackage(pkg: McpPackage): McpLaunch | undefined {
  const env = variables(pkg.environmentVariables);
  const args = positional(pkg.packageArguments);
  const runtime = positional(pkg.runtimeArguments);
  const versioned = (separator: string) => (pkg.version && pkg.version !== 'latest' ? `${pkg.identifier}${separator}${pkg.version}` : pkg.identifier);
  if (pkg.transport.type !== 'stdio') return undefined;
  switch (pkg.registryType) {
    case 'npm': {
      // `npx -y --package pkg bin` when the executable is not the package's own name.
      const head = runtime[0] === '--package' ? runtime : [versioned('@')];
      return { transport: 'stdio', command: 'npx', args: ['-y', ...head, ...args], env, package: pkg };
    }
    case 'pypi': {
      const head = runtime[0] === '--from' ? runtime : [versioned('==')];
      return { transport: 'stdio', command: 'uvx', args: [...head, ...args], env, package: pkg };
    }
    case 'oci': {
      const envArgs = env.flatMap((v) => ['-e', v.name]);
      return { transport: 'stdio', command: 'docker', args: ['run', '-i', '--rm', ...envArgs, versioned(':'), ...args], env, package: pkg };
    }
    default:
      return undefined;
  }
}

/** The listing's packages: the registry's when a source gave them, else the one its install line names. */
export function packagesOf(source: InstallSource): McpPackage[] {
  if (source.type !== 'mcp') return [];
  if (source.packages && source.packages.length > 0) return [...source.packages];
  const pkg = packageOf(source.installCommand);
  return pkg ? [pkg] : [];
}

/** Every way to start or reach an MCP server we know: its packages that a client can run, then its remotes. */
export function mcpLaunches(source: InstallSource): McpLaunch[] {
  const launches: McpLaunch[] = [];
  for (const pkg of packagesOf(source)) {
    const launch = launchOfPackage(pkg);
    if (launch) launches.push(launch);
  }
  for (const remote of source.remotes ?? []) {
    if (!/^https?:\/\//.test(remote.url)) continue;
    const headers = (remote.headers ?? []).map((h) => ({
      name: h.name,
      description: h.description,
      required: h.isRequired ?? false,
      secret: h.isSecret ?? false,
    }));
    launches.push({ transport: remote.type === 'sse' ? 'sse' : 'streamable-http', url: remote.url, headers });
  }
  return launches;
}

/** The shell line that starts a stdio launch, variables the client must set written before it. */
export function commandLine(launch: Extract<McpLaunch, { transport: 'stdio' }>): string {
  return [launch.command, ...launch.args].map(shellWord).join(' ');
}

/** The install line a listing shows, or undefined when nothing it publishes can be run. */
export function installLineOf(source: InstallSource): InstallLine | undefined {
  switch (source.type) {
    case 'skill':
      return { command: `npx skills add ${source.repo} --skill ${shellWord(skillName(source.name))}`, installer: THIRD_PARTY_SKILLS_INSTALLER };
    case 'mcp': {
      const stdio = mcpLaunches(source).find((launch) => launch.transport === 'stdio');
      return stdio ? { command: commandLine(stdio) } : undefined;
    }
    default:
      return source.installCommand ? { command: source.installCommand } : undefined;
  }
}
