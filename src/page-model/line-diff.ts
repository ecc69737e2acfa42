// A line diff for a modified copy's page: its SKILL.md (or description) against the origin's, as the lines both
// keep, the origin's lines the copy dropped and the lines it added. Longest common subsequence over lines, which is
// what a reader expects from `diff`; the files are bounded so the table stays small.

export interface DiffLine {
  op: ' ' | '-' | '+';
  text: string;
}

/** Lines compared from each side; a longer file's tail is shown as one note. */
export const DIFF_MAX_LINES = 1500;

export function lineDiff(origin: string, copy: string): DiffLine[] {
  const a = origin.replace(/\r\n?/g, '\n').split('\n').slice(0, DIFF_MAX_LINES);
  const b = copy.replace(/\r\n?/g, '\n').split('\n').slice(0, DIFF_MAX_LINES);
  // Common prefix and suffix first: most copies differ in a few places, and the table is then small.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) start++;
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const n = endA - start;
  const m = endB - start;
  const table = new Uint32Array((n + 1) * (m + 1));
  for (let i = n - 1; i >= 0; i--)
    for (let j = m - 1; j >= 0; j--)
      table[i * (m + 1) + j] =
        a[start + i] === b[start + j] ? table[(i + 1) * (m + 1) + j + 1]! + 1 : Math.max(table[(i + 1) * (m + 1) + j]!, table[i * (m + 1) + j + 1]!);
  const out: DiffLine[] = a.slice(0, start).map((text) => ({ op: ' ', text }));
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && a[start + i] === b[start + j]) {
      out.push({ op: ' ', text: a[start + i]! });
      i++;
      j++;
    } else if (j < m && (i === n || table[i * (m + 1) + j + 1]! >= table[(i + 1) * (m + 1) + j]!)) {
      out.push({ op: '+', text: b[start + j]! });
      j++;
    } else {
      out.push({ op: '-', text: a[start + i]! });
      i++;
    }
  }
  for (let k = endA; k < a.length; k++) out.push({ op: ' ', text: a[k]! });
  return out;
}
