// The words the listing page uses for an audit: its level, the rules it ran and what no rule looks at. One place,
// so the page and the docs say the same.
import type { AuditLevel } from '../domain/schemas.ts';

export const AUDIT_LEVEL_TEXT: Record<AuditLevel, string> = {
  none: 'no findings',
  info: 'notes (info)',
  warn: 'warnings',
  high: 'high-severity findings',
};

/** The rules, as the page lists them (build/skill-audit.ts AUDIT_RULES, in words). */
export const AUDIT_CHECKS = [
  'remote code piped to a shell or evaluated (curl | sh, eval "$(curl …)", iex (irm …), exec of a download)',
  'encoded (base64 or hex) payloads that are decoded and executed',
  'credential stores (~/.ssh, ~/.aws/credentials, .netrc, keychains, …) or the whole environment read in a file that also sends over the network',
  'secret environment variables read in a file that also sends over the network (info: normal for a client of that service)',
  'invisible or bidirectional Unicode (bidi controls, tag characters, zero-width characters)',
  'instructions to ignore other instructions or to hide actions from the user',
  'binary files (executables, archives, data)',
] as const;

export const AUDIT_NOT_CHECKED = [
  'files this catalog does not store: the rest of the repository, and anything fetched or installed at run time (packages, dependencies, downloads)',
  'what the code does when it runs: nothing was executed, and obfuscation the rules do not know passes unseen',
  'whether a command shown in SKILL.md will be run by the agent: the severity assumes a code block is shown to a person and prose is followed by the agent',
  'the intent of a finding: a security skill quoting an attack, or an installer that downloads its own tool, matches the same rules',
] as const;
