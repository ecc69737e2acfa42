// One cleaning rule for every text a source gives: the snapshot generator's `clean`, so a
// collected description compares equal to the one the snapshot holds for the same file.
const MD_IMAGE = /!\[[^\]]*\]\([^)]*\)/g;
const MD_LINK = /\[([^\]]*)\]\([^)]*\)/g;
const HTML_TAG = /<[^>]+>/g;
// The variation selector and the zero-width joiner are alternatives, not class members: each goes on its own.
const EMOJI =
  /\uFE0F|\u200D|[\u{1F000}-\u{1FAFF}\u2600-\u27BF\u2B50\u2B06\u2194-\u21AA\u2139\u231A-\u23FF\u2934\u2935\u3030\u303D\u3297\u3299\u{E0000}-\u{E007F}]/gu;

export const DESCRIPTION_MAX = 400;
export const NAME_MAX = 120;

/** Plain text: Markdown links and images, HTML, emoji and emphasis marks removed, whitespace collapsed, cut on a word. */
export function cleanText(text: string | undefined | null, limit = DESCRIPTION_MAX): string {
  if (!text) return '';
  let t = String(text)
    .replace(MD_IMAGE, '')
    .replace(MD_LINK, '$1')
    .replace(HTML_TAG, '')
    .replace(EMOJI, '')
    .replaceAll('`', '')
    .replaceAll('**', '')
    .replaceAll('__', '')
    .replace(/\s+/g, ' ')
    .trim()
    .replace(/^[-\u2013\u2014:|\s]+/, '')
    .trim();
  // Python slices by code point; a surrogate pair must not be cut in half.
  const chars = [...t];
  if (chars.length > limit) {
    const head = chars.slice(0, limit).join('');
    const space = head.lastIndexOf(' ');
    const cut = space > 0 ? head.slice(0, space) : head;
    t = `${cut.replace(/[,;:. ]+$/, '')}\u2026`;
  }
  return t;
}

/** The slug rule of the snapshot: lowercase ASCII letters and digits joined by single hyphens. */
export function slugify(text: string): string {
  return text
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .replace(/-{2,}/g, '-');
}

/**
 * A copy of a string that keeps no reference to the text it was cut from: V8 holds a value JSON.parse read from a
 * line as a slice of that line, so keeping a record's id would keep its whole line alive.
 */
export function detach<T extends string | undefined>(text: T): T {
  return (text === undefined ? text : Buffer.from(text, 'utf8').toString('utf8')) as T;
}
