// Front matter of SKILL.md and workflow files, parsed with the `yaml` package only: gray-matter's `---js` engine
// evaluates code (CVE-2022-25863). Lenient like the clients people use: a plain value with an unquoted `: `
// (`description: Use when: ...`, strict YAML's most common failure in real skills) is read again quoted.
import { parse } from 'yaml';

export type FrontMatter =
  { ok: true; data: Record<string, unknown>; body: string; present: boolean; repaired: string[] } | { ok: false; error: string; body: string };

const FENCE = /^---[ \t]*\r?\n(?:([\s\S]*?)\r?\n)?---[ \t]*(?:\r?\n|$)/;

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

function parseYaml(source: string): Record<string, unknown> {
  // Duplicate keys occur in real files and clients accept them; aliases are capped against expansion bombs.
  const data: unknown = parse(source, { uniqueKeys: false, maxAliasCount: 100, prettyErrors: false });
  if (data == null) return {};
  if (!isRecord(data)) throw new Error('front matter is not a mapping');
  return data;
}

const KEY_LINE = /^(\s*)([A-Za-z0-9_][\w.-]*):[ \t]+(.+?)\s*$/;
/** A plain (unquoted, not block, not flow) value that strict YAML refuses or misreads. */
const needsQuotes = (value: string) => !/^["'|>[{&*!#]/.test(value) && (/:\s/.test(value) || /^[@`%]/.test(value));

/** The lines whose plain value contains `: ` (or starts with a reserved indicator), quoted; undefined if none. */
function quotePlainValues(source: string): { source: string; keys: string[] } | undefined {
  const lines = source.split(/\r?\n/);
  const keys: string[] = [];
  const out: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const match = KEY_LINE.exec(lines[index]!);
    if (!match || !needsQuotes(match[3]!)) {
      out.push(lines[index]!);
      continue;
    }
    const indent = match[1]!.length;
    let value = match[3]!;
    // A plain scalar may continue on more-indented lines: they belong to the value being quoted.
    while (index + 1 < lines.length) {
      const next = lines[index + 1]!;
      if (!next.trim() || next.length - next.trimStart().length <= indent) break;
      value += ` ${next.trim()}`;
      index++;
    }
    keys.push(match[2]!);
    out.push(`${match[1]}${match[2]}: ${JSON.stringify(value)}`);
  }
  return keys.length > 0 ? { source: out.join('\n'), keys } : undefined;
}

export function parseFrontMatter(text: string): FrontMatter {
  const content = text.replace(/^\uFEFF/, '');
  const fence = FENCE.exec(content);
  if (!fence) return { ok: true, data: {}, body: content, present: false, repaired: [] };
  const source = fence[1] ?? '';
  const body = content.slice(fence[0].length);
  try {
    return { ok: true, data: parseYaml(source), body, present: true, repaired: [] };
  } catch (error) {
    const quoted = quotePlainValues(source);
    if (quoted) {
      try {
        return { ok: true, data: parseYaml(quoted.source), body, present: true, repaired: quoted.keys };
      } catch {
        // Not the unquoted-colon defect: report the original error.
      }
    }
    return { ok: false, error: String((error as Error).message).split('\n')[0]!, body };
  }
}

export { isRecord };
