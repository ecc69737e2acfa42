// The rule-based audit of a skill's stored files, run by the index stage over every listing that has any. Each
// rule reads one line at a time (credential rules read the whole file, since the read and the send are seldom on one
// line), so a finding always has a file, a line and the line itself. The rubric (src/docs/audit.md) weighs a match by
// where it is: a script runs as it is written, so a match there is the rule's full severity; a command in a Markdown
// code block is shown to someone who may run it, so it is weighed lower; prose in SKILL.md is an instruction the agent
// follows, between the two. Pure: files in, an audit out.
import type { AuditFinding, AuditLevel, AuditSeverity, ListingFile, SkillAudit } from '../src/domain/schemas.ts';

export interface AuditRule {
  id: string;
  title: string;
}

/** Every rule, in the order the docs and stats list them. */
export const AUDIT_RULES = [
  { id: 'remote-code-exec', title: 'remote code piped to a shell or eval' },
  { id: 'encoded-payload-exec', title: 'a decoded (base64 or hex) payload that is executed' },
  { id: 'credential-exfiltration', title: 'a credential store or the whole environment read, and a network send' },
  { id: 'secret-sent', title: 'a secret environment variable read, and a network send' },
  { id: 'invisible-unicode', title: 'invisible or bidirectional Unicode characters' },
  { id: 'deceive-user', title: 'instructions to ignore instructions or to hide actions from the user' },
  { id: 'binary-file', title: 'a binary file' },
] as const satisfies readonly AuditRule[];
export type AuditRuleId = (typeof AUDIT_RULES)[number]['id'];

/** Findings kept per listing; the count of the rest is the `truncated` flag. */
export const MAX_FINDINGS = 50;
const EXCERPT_MAX = 160;

const SEVERITY_RANK: Record<AuditSeverity, number> = { info: 1, warn: 2, high: 3 };

type FileKind = 'skill-md' | 'markdown' | 'script' | 'other';

const SCRIPT_EXT = /\.(?:sh|bash|zsh|ksh|fish|py|pyw|js|mjs|cjs|ts|mts|cts|jsx|tsx|ps1|psm1|bat|cmd|rb|pl|php|lua|go|rs)$/i;
const MARKDOWN_EXT = /\.(?:md|mdx|markdown|txt|rst)$/i;
const EXECUTABLE_EXT = /\.(?:exe|dll|so|dylib|bin|o|a|class|jar|pyc|pyo|wasm|node|msi|dmg|apk|app|com|scr)$/i;
const ARCHIVE_EXT = /\.(?:zip|tar|gz|tgz|bz2|xz|7z|rar|whl|deb|rpm)$/i;

function kindOf(file: ListingFile): FileKind {
  if (file.path === 'SKILL.md') return 'skill-md';
  if (MARKDOWN_EXT.test(file.path)) return 'markdown';
  if (SCRIPT_EXT.test(file.path) || file.content.startsWith('#!')) return 'script';
  return 'other';
}

// Remote code run as it arrives: a download piped into an interpreter, or evaluated from a command substitution.
// `| python3 -c '...'` and `| node -e` run the code in their argument and read the download as data.
const INTERPRETER = String.raw`(?:sudo\s+(?:-\S+\s+)*)?(?:env\s+)?(?:(?:ba|z|da|k|fi)?sh|python[0-9.]*|node|perl|ruby|php|iex|Invoke-Expression)\b(?!\s+-[cemp]\b)`;
const DOWNLOAD = String.raw`(?:curl|wget|iwr|irm|Invoke-WebRequest|Invoke-RestMethod|fetch)\b`;
const REMOTE_CODE: readonly RegExp[] = [
  new RegExp(String.raw`\b${DOWNLOAD}[^|\n]*\|\s*${INTERPRETER}`, 'i'),
  new RegExp(String.raw`\b(?:eval|source|\.|(?:ba|z)?sh\s+-c)\s*["']?\s*[$<]\(\s*${DOWNLOAD}`, 'i'),
  new RegExp(String.raw`\b(?:ba|z)?sh\s+<\(\s*${DOWNLOAD}`, 'i'),
  /\b(?:iex|Invoke-Expression)\b[^\n]*\b(?:irm|iwr|Invoke-RestMethod|Invoke-WebRequest|DownloadString|Net\.WebClient)\b/i,
  /\bexec\s*\(\s*(?:requests\.get|urllib\.request\.urlopen|urlopen|httpx\.get)\s*\(/,
  /\beval\s*\(\s*await\s+\(?\s*await\s+fetch\s*\(/,
];

// A payload hidden behind an encoding and then run.
const ENCODED_PAYLOAD: readonly RegExp[] = [
  new RegExp(String.raw`\bbase64\s+(?:-d|--decode|-D)\b[^|\n]*\|\s*${INTERPRETER}`, 'i'),
  new RegExp(String.raw`\bxxd\s+-r\b[^|\n]*\|\s*${INTERPRETER}`, 'i'),
  /\b(?:exec|eval)\s*\(\s*(?:base64\.b64decode|b64decode|codecs\.decode|bytes\.fromhex|binascii\.(?:unhexlify|a2b_base64)|zlib\.decompress|marshal\.loads)\s*\(/,
  /\b(?:eval|Function)\s*\(\s*(?:atob\s*\(|Buffer\.from\s*\([^)]*,\s*['"](?:base64|hex)['"]\s*\))/,
  /\bpowershell(?:\.exe)?\b[^\n]*\s-(?:EncodedCommand|enc|e)\s+[A-Za-z0-9+/=]{20,}/i,
  /\bFromBase64String\b[^\n]*\b(?:iex|Invoke-Expression)\b|\b(?:iex|Invoke-Expression)\b[^\n]*\bFromBase64String\b/i,
];

const CREDENTIAL_STORE =
  /(?:~|\$HOME|\$\{HOME\}|\bhome\b[^\n]{0,20})\/?\.(?:ssh\/|aws\/credentials|netrc|git-credentials|docker\/config\.json|kube\/config|npmrc|pypirc|config\/gcloud)|\bid_(?:rsa|ed25519|ecdsa)\b|\bsecurity\s+find-(?:generic|internet)-password\b|\bLogin Data\b|\bcookies\.sqlite\b|\/etc\/shadow\b|\bwallet\.dat\b/i;
const ENVIRONMENT_DUMP =
  /\bprintenv\b\s*(?:\||>)|\benv\s*\|\s*(?:curl|nc|base64)|JSON\.stringify\(\s*process\.env\s*\)|Object\.(?:entries|keys|values)\(\s*process\.env\s*\)|\bdict\(\s*os\.environ\s*\)|json\.dumps\(\s*(?:dict\()?\s*os\.environ\b|Get-ChildItem\s+env:/i;
const SECRET_ENV =
  /(?:process\.env\.|process\.env\[['"]|os\.environ(?:\.get)?\s*[[(]\s*['"]|os\.getenv\(\s*['"]|\$\{?|\$env:)[A-Z0-9_]*(?:SECRET|TOKEN|PASSWORD|PASSWD|API_?KEY|ACCESS_KEY|PRIVATE_KEY|CREDENTIALS?)[A-Z0-9_]*/;
const NETWORK_SEND =
  /\bcurl\b[^\n]*(?:\s-d\b|\s--data\b|\s--data-\w+|\s-F\b|\s--form\b|\s-T\b|\s--upload-file\b|-X\s*['"]?(?:POST|PUT)\b)|\bwget\b[^\n]*--post-|\brequests\.(?:post|put)\s*\(|\bhttpx\.(?:post|put)\s*\(|\burlopen\s*\([^)]*data\s*=|\bfetch\s*\([^)]*method\s*:\s*['"](?:POST|PUT)|\baxios\.(?:post|put)\s*\(|Invoke-(?:WebRequest|RestMethod)\b[^\n]*-Method\s+['"]?(?:Post|Put)|\bnc\s+-?\w*\s*[\w.-]+\s+\d{2,5}\b|\/dev\/tcp\/|\bsocket\.connect\b|\bsmtplib\b/i;

const DECEIT: readonly RegExp[] = [
  /\bignore\s+(?:all\s+|any\s+)?(?:of\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|earlier|preceding|system)\s+(?:instructions|prompts?|messages|rules|directions)\b/i,
  /\bdisregard\s+(?:all\s+|any\s+)?(?:the\s+|your\s+)?(?:previous|prior|above|system|user'?s?)\s+(?:instructions|prompts?|rules|requests?)\b/i,
  /\b(?:do\s+not|don'?t|never)\s+(?:tell|inform|notify|alert)\s+the\s+user(?!\s+to\b)(?:\s+(?:about|that|what|of)\b|\s*[.,;:]|$)/i,
  /\b(?:do\s+not|don'?t|never)\s+(?:mention|reveal|disclose|show)\s+(?:this|it|these|that|them|anything)\s+to\s+the\s+user\b/i,
  /\b(?:do\s+not|don'?t|never)\s+let\s+the\s+user\s+(?:know|see|find\s+out)\b/i,
  /\bwithout\s+(?:telling|informing|notifying|alerting)\s+the\s+user\b/i,
  /\b(?:hide|conceal)\s+(?:this|it|these|that|them|your\s+\w+|the\s+\w+)\s+from\s+the\s+user\b/i,
  /\b(?:secretly|covertly|silently)\s+(?:send|upload|exfiltrate|transmit|post|copy|forward)\b/i,
  /\bthe\s+user\s+(?:must|should)\s*(?:not|n't)\s+(?:know|see|find\s+out|notice)\b/i,
];
/** A line that discusses an attack (a security skill listing what to look for) rather than making one. */
const DISCUSSES_ATTACK =
  /\b(?:injection|attack|attacker|malicious|adversar\w*|jailbreak|red[\s-]?team|detect\w*|flag|phishing|example|e\.g\.|such\s+as|patterns?|payloads?)\b/i;

// Bidirectional embeddings, overrides and isolates reorder what a reviewer sees (Trojan Source, CVE-2021-42574);
// tag characters are invisible and carry ASCII (a known way to hide prompts); zero-width characters split or hide words.
const BIDI = /[\u202A-\u202E\u2066-\u2069]/u;
const TAG_CHARS = /(?<!\u{1F3F4}[\u{E0020}-\u{E007F}]*)[\u{E0000}-\u{E007F}]/u;
const ZERO_WIDTH =
  /[\u200B\u200C\u2060\u180E\u2062-\u2064]|(?<!^)\uFEFF|(?<!\p{Extended_Pictographic}|\p{Emoji_Modifier}|\u{FE0F})\u200D|\u200D(?![\p{Extended_Pictographic}])/u;
// Cheap tests of a line before the rules of a family run: most lines hold none of these words or characters.
const MAY_RUN_REMOTE = /curl|wget|iwr|irm|iex|invoke-|download|fetch|exec|eval/i;
const MAY_DECODE = /base64|xxd|exec|eval|function|powershell|frombase64/i;
const MAY_DECEIVE = /user|ignore|disregard|secretly|covertly|silently/i;
const MAY_BE_INVISIBLE = /[\u180E\u200B-\u200F\u202A-\u202E\u2060-\u2069\uFEFF\u{E0000}-\u{E007F}]/u;

const INVISIBLE_ANY = /[\u200B-\u200F\u202A-\u202E\u2060-\u2064\u2066-\u2069\u180E\uFEFF\u{E0000}-\u{E007F}\p{Cc}]/gu;

/** The line as an excerpt: trimmed to EXCERPT_MAX characters, invisible and control characters written as \u{...}. */
export function escapeExcerpt(line: string): string {
  const trimmed = line.trim();
  const cut = [...trimmed].slice(0, EXCERPT_MAX).join('');
  const escaped = cut.replace(INVISIBLE_ANY, (c) => (c === '\t' ? c : `\\u{${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}}`));
  return [...trimmed].length > EXCERPT_MAX ? `${escaped}…` : escaped;
}

function isBinary(file: ListingFile): 'executable' | 'archive' | 'data' | undefined {
  if (
    EXECUTABLE_EXT.test(file.path) ||
    file.content.startsWith('\u007fELF') ||
    (file.content.startsWith('MZ') && file.content.slice(0, 200).includes('\u0000'))
  )
    return 'executable';
  if (ARCHIVE_EXT.test(file.path)) return 'archive';
  if (file.content.includes('\u0000')) return 'data';
  let replaced = 0;
  for (let i = file.content.indexOf('\uFFFD'); i !== -1; i = file.content.indexOf('\uFFFD', i + 1)) replaced++;
  return replaced > 8 && replaced > file.content.length / 100 ? 'data' : undefined;
}

/** The severity of an execution rule by where it matched: a script runs it; a code block shows it to someone. */
function executionSeverity(kind: FileKind, inCode: boolean, full: AuditSeverity): AuditSeverity {
  if (kind === 'script') return full;
  if (kind === 'other') return 'warn';
  // Only SKILL.md's prose is an instruction the agent is given; a code block, or a reference document, shows a command.
  if (inCode || kind === 'markdown') return full === 'high' ? 'info' : full;
  return 'warn';
}

export function auditFile(file: ListingFile): AuditFinding[] {
  const findings: AuditFinding[] = [];
  const add = (rule: AuditRuleId, severity: AuditSeverity, line: number, text: string, message: string) =>
    findings.push({ rule, severity, file: file.path, line, excerpt: escapeExcerpt(text), message });

  const binary = isBinary(file);
  if (binary) {
    const severity: AuditSeverity = binary === 'executable' ? 'high' : binary === 'archive' ? 'warn' : 'info';
    const what =
      binary === 'executable'
        ? 'an executable or compiled file: nobody can review it as text'
        : binary === 'archive'
          ? 'an archive: its contents were not read'
          : 'binary data: not read as text';
    findings.push({ rule: 'binary-file', severity, file: file.path, line: 1, excerpt: '', message: what });
    return findings;
  }

  const kind = kindOf(file);
  const markdown = kind === 'skill-md' || kind === 'markdown';
  const lines = file.content.split(/\r\n|\r|\n/);
  let fence: string | undefined;
  const credentialLines: number[] = [];
  const dumpLines: number[] = [];
  const secretLines: number[] = [];
  const sendLines: number[] = [];
  lines.forEach((text, index) => {
    const line = index + 1;
    let inCode = false;
    if (markdown) {
      const marker = /^\s{0,3}(`{3,}|~{3,})/.exec(text)?.[1];
      if (marker && (fence === undefined || (marker[0] === fence[0] && marker.length >= fence.length))) {
        fence = fence === undefined ? marker : undefined;
        inCode = true;
      } else inCode = fence !== undefined;
    }

    if (MAY_BE_INVISIBLE.test(text)) {
      if (BIDI.test(text)) add('invisible-unicode', 'high', line, text, 'bidirectional control characters: the text may read differently from how it runs');
      else if (TAG_CHARS.test(text)) add('invisible-unicode', 'high', line, text, 'Unicode tag characters: invisible text an agent still reads');
      else if (ZERO_WIDTH.test(text.slice(index === 0 ? 1 : 0)))
        add('invisible-unicode', kind === 'script' || kind === 'skill-md' ? 'warn' : 'info', line, text, 'zero-width characters inside the text');
    }

    if (MAY_RUN_REMOTE.test(text) && REMOTE_CODE.some((re) => re.test(text))) {
      const severity = executionSeverity(kind, inCode, 'high');
      add(
        'remote-code-exec',
        severity,
        line,
        text,
        inCode
          ? 'a command in a code block downloads code and runs it (shown, not run by the skill itself)'
          : markdown
            ? 'the instructions tell the agent to download code and run it'
            : 'the file downloads code and runs it',
      );
    }
    if (MAY_DECODE.test(text) && ENCODED_PAYLOAD.some((re) => re.test(text))) {
      // No documentation needs to show a hidden payload being run: in a code block it is still a warning.
      add('encoded-payload-exec', kind === 'script' ? 'high' : 'warn', line, text, 'an encoded payload is decoded and executed');
    }
    if (MAY_DECEIVE.test(text) && DECEIT.some((re) => re.test(text))) {
      // A phrase in quotes is quoted: a skill warning the agent about "Ignore previous instructions" in the mail it reads.
      const quoted = DECEIT.some((re) => new RegExp(String.raw`["'“「『‘«]\s*${re.source.replace(/^\b/, '')}`, 'i').test(text));
      const severity: AuditSeverity = DISCUSSES_ATTACK.test(text) || inCode || quoted ? 'info' : kind === 'skill-md' ? 'high' : 'warn';
      add(
        'deceive-user',
        severity,
        line,
        text,
        severity === 'info'
          ? 'wording that asks to ignore instructions or hide actions, in a passage that seems to discuss it'
          : 'an instruction to ignore other instructions or to hide actions from the user',
      );
    }
    if (!markdown || inCode) {
      if (CREDENTIAL_STORE.test(text)) credentialLines.push(line);
      if (ENVIRONMENT_DUMP.test(text)) dumpLines.push(line);
      if (SECRET_ENV.test(text)) secretLines.push(line);
      if (NETWORK_SEND.test(text)) sendLines.push(line);
    }
  });

  // In documentation only a read and a send on one line count: a guide that names ~/.aws/credentials in one example
  // and shows a POST in another is explaining, not sending.
  const sends = (read: number) => (markdown ? sendLines.includes(read) : sendLines.length > 0);
  const lineText = (line: number) => lines[line - 1] ?? '';
  for (const read of [...credentialLines, ...dumpLines].sort((a, b) => a - b)) {
    if (!sends(read)) continue;
    const sent = markdown ? read : sendLines[0]!;
    add(
      'credential-exfiltration',
      markdown ? 'warn' : 'high',
      read,
      lineText(read),
      `reads a credential store or the whole environment, and sends over the network (line ${sent})`,
    );
  }
  if (credentialLines.length === 0 && dumpLines.length === 0) {
    const read = secretLines.find(sends);
    if (read !== undefined)
      add(
        'secret-sent',
        'info',
        read,
        lineText(read),
        `reads a secret environment variable and sends over the network (line ${markdown ? read : sendLines[0]!}): normal for a client of that service; check where it goes`,
      );
  }
  return findings;
}

export function levelOf(findings: readonly AuditFinding[]): AuditLevel {
  let rank = 0;
  for (const finding of findings) rank = Math.max(rank, SEVERITY_RANK[finding.severity]);
  return rank === 3 ? 'high' : rank === 2 ? 'warn' : rank === 1 ? 'info' : 'none';
}

/** The audit of one listing's stored files. */
export function auditFiles(files: readonly ListingFile[]): SkillAudit {
  const all = files.flatMap((file) => auditFile(file));
  // Most severe first; within a severity, files and lines in order.
  const order = new Map(files.map((file, i) => [file.path, i]));
  all.sort((a, b) => SEVERITY_RANK[b.severity] - SEVERITY_RANK[a.severity] || order.get(a.file)! - order.get(b.file)! || a.line - b.line);
  return {
    level: levelOf(all),
    files: files.length,
    bytes: files.reduce((sum, file) => sum + file.size, 0),
    findings: all.slice(0, MAX_FINDINGS),
    truncated: all.length > MAX_FINDINGS,
  };
}
