// The one tokenizer of keyword search: the build indexes listings with it and the shim parses queries with it,
// so a word is the same term on both sides.
import { stemmer } from 'stemmer';
import { eng } from 'stopword';

const NON_ASCII = /[\u0080-\uffff]/;

/** Lower-case, diacritics folded ("Café" → "cafe"); Hangul syllables stay whole (NFKD splits them into letters). */
export function normalize(text: string): string {
  // Most text is ASCII, which has nothing to fold: the Unicode passes were a fifth of tokenizing the catalog.
  if (!NON_ASCII.test(text)) return text.toLowerCase();
  return text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .normalize('NFC')
    .toLowerCase();
}

/**
 * Chinese and Japanese are written without spaces between words, so a run of their characters is not a word: it is
 * indexed and searched as its overlapping pairs of characters, as Lucene's CJK bigrams do ("小红书" → 小红, 红书), and
 * Korean with them. Read as one word, "微信" (WeChat) found 1 of the 18 listings that write it.
 */
const CJK_CLASS = String.raw`[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]`;
const CJK = new RegExp(CJK_CLASS, 'u');
const CJK_RUN = new RegExp(`(${CJK_CLASS}+)`, 'u');

/**
 * A part holding CJK characters: each run of its other letters as one word, each CJK run as overlapping pairs of
 * characters (a lone character as itself).
 */
function cjkParts(part: string): string[] {
  const out: string[] = [];
  part.split(CJK_RUN).forEach((segment, i) => {
    if (segment.length === 0) return;
    if (i % 2 === 0) {
      out.push(segment);
      return;
    }
    const chars = [...segment];
    if (chars.length === 1) out.push(segment);
    for (let c = 0; c + 1 < chars.length; c++) out.push(chars[c]! + chars[c + 1]!);
  });
  return out;
}

/**
 * Words whose symbols are part of the word: one or two letters and "++" or "#" (C++, C#, F#; a version may follow:
 * C++20), or a word written with a leading dot (.NET, .env). Read as letters only, "c#" was the letter c and
 * ".net" the word net, so that q=c# found C listings and q=.net "safety-net".
 */
const SYMBOL_WORD = String.raw`(?<![\p{L}\p{N}])\p{L}{1,2}(?:\+\+|#)(?![\p{L}+#])|(?<![\p{L}\p{N}._-])\.\p{L}[\p{L}\p{N}]*(?![\p{L}\p{N}]|[./][\p{L}\p{N}])`;
const IS_SYMBOL_WORD = new RegExp(`^(?:${SYMBOL_WORD})$`, 'u');
/**
 * Runs of text that a word boundary inside a name (hyphen, underscore, dot, slash, camelCase) splits into parts,
 * or symbol words. A compound's later part stops before "++" or "#", so "C/C++" is "C" and then "C++".
 */
const COMPOUND = new RegExp(String.raw`${SYMBOL_WORD}|[\p{L}\p{N}]+(?:[-_./:+@'’][\p{L}\p{N}]+(?![\p{L}\p{N}]|\+\+|#))*`, 'gu');
/**
 * Where a compound splits into parts. A dot between two digits does not split: "3.12", "2.0" and "127.0.0.1" are
 * one word each. Split, "oauth 2.0" matched "remote-mcp-server-20" (its parts joined: 2 + 0 = 20) and "python 3.12"
 * every listing with a 3 and a 12 somewhere.
 */
const PART_BREAK = /(?:[-_/:+@'’]|(?<!\p{N})\.|\.(?!\p{N}))+|(?<=\p{Ll})(?=\p{Lu})|(?<=\p{Lu})(?=\p{Lu}\p{Ll})|(?<=\p{L})(?=\p{N}{2,})/u;

/** The parts of one compound, normalized: "GitHubMCP" → git, hub, mcp; "find-skills" → find, skills; "C#" → c#. */
export function parts(compound: string): string[] {
  if (IS_SYMBOL_WORD.test(compound)) return [normalize(compound)];
  const split = compound
    .split(PART_BREAK)
    .map(normalize)
    .filter((part) => part.length > 0);
  return CJK.test(compound) ? split.flatMap(cjkParts) : split;
}

/** The letters of a symbol word ("c#" → "c", ".net" → "net"), which the index holds too; undefined for other words. */
function lettersOf(part: string): string | undefined {
  const letters = part.replace(/[^\p{L}\p{N}]+/gu, '');
  // Tested last: nearly every part is letters and digits only. A number with dots ("3.12") is no symbol word.
  return letters !== part && letters.length > 0 && IS_SYMBOL_WORD.test(part) ? letters : undefined;
}

/** Compounds of a text in order: "find-skills, for GitHubMCP" → [find-skills, for, GitHubMCP]. */
export function compounds(text: string): string[] {
  return text.match(COMPOUND) ?? [];
}

/**
 * Words too common to mean anything in a query ("how do I ..."). Content words the generic English list also
 * holds are kept: they name real listings (make.com, "get" tools).
 */
const KEPT = new Set([
  'make',
  'get',
  'got',
  'take',
  'like',
  'way',
  'well',
  'still',
  'never',
  'now',
  'come',
  'came',
  'said',
  'many',
  'much',
  'most',
  'more',
  'other',
  'same',
  'over',
  'under',
  'out',
  'up',
  'very',
  'before',
  'after',
  'between',
  'through',
]);
/** Request phrasing that carries no topic ("let my agent ...", "I want something that ..."). */
const REQUEST_WORDS = 'will let lets want wants need needs something someone anything thing things instead without whether'.split(' ');
export const STOP_WORDS: ReadonlySet<string> = new Set([...(eng as string[]).filter((word) => !KEPT.has(word)), ...REQUEST_WORDS]);

/** Words ending in "s" that are not plurals, so must not lose it. */
const INVARIANT = new Set([
  'news',
  'ios',
  'macos',
  'canvas',
  'redis',
  'atlas',
  'bias',
  'chaos',
  'cosmos',
  'kubernetes',
  'series',
  'species',
  'status',
  'axios',
  'sass',
  'less',
  'https',
  'aws',
  'gas',
  'dns',
  'cms',
  'sms',
  'css',
  'os',
]);

/**
 * Plurals no suffix rule reaches, each to its singular: Latin and Greek ones common in software ("indices",
 * "vertices", "analyses") and a few English ones. Porter cut them to terms of their own ("indic", "analys").
 * Plurals that are also another word's inflection stay out ("leaves", "lives", "bases").
 */
const IRREGULAR = new Map([
  ['indices', 'index'],
  ['vertices', 'vertex'],
  ['matrices', 'matrix'],
  ['appendices', 'appendix'],
  ['analyses', 'analysis'],
  ['hypotheses', 'hypothesis'],
  ['syntheses', 'synthesis'],
  ['diagnoses', 'diagnosis'],
  ['theses', 'thesis'],
  ['crises', 'crisis'],
  ['parentheses', 'parenthesis'],
  ['criteria', 'criterion'],
  ['phenomena', 'phenomenon'],
  ['children', 'child'],
  ['mice', 'mouse'],
  ['knives', 'knife'],
  ['halves', 'half'],
  ['shelves', 'shelf'],
  ['wolves', 'wolf'],
]);

/** What a stem may have cut off the word: inflections only (plural, -ed, -ing, a final e or y). */
const INFLECTION = /^(?:s|es|ies|ied|ed|d|ing|e|y|'s)$/;

/**
 * Conservative English stem of one normalized word. The Porter stemmer (package `stemmer`) proposes a stem;
 * it is kept only when what it removed is an inflection, so "servers" → "server", "driving" → "drive",
 * "notes" → "note", while derivations keep their own term: "remotion" stays "remotion" (Porter: "remot",
 * the stem of "remote"), "registration" stays (Porter: "registr"), "management" stays (Porter: "manag").
 */
export function stem(word: string): string {
  const singular = IRREGULAR.get(word);
  if (singular !== undefined) return stem(singular);
  // A final "s" after "si" is no plural ending: "analysis", "hypothesis" (Porter: "hypothesi").
  if (word.length <= 3 || INVARIANT.has(word) || /\d/.test(word) || word.endsWith('js') || word.endsWith('ss') || word.endsWith('sis')) return word;
  const proposed = stemmer(word);
  if (proposed === word) return word;
  if (proposed.length >= 3 && acceptable(word, proposed)) return proposed;
  // A plural of a derived word ("registrations"): stem its singular, which keeps the derivation.
  if (word.endsWith('ies')) return stem(word.slice(0, -3) + 'y');
  if (word.endsWith('s')) return stem(word.slice(0, -1));
  return word;
}

/**
 * stem() remembering its answers, for the build, which stems the same words once per listing that writes them
 * (the stemmer tries a dozen expressions per word). Forgets all at `limit` words, so memory stays bounded.
 */
export function memoStem(limit = 1 << 20): (word: string) => string {
  const known = new Map<string, string>();
  return (word) => {
    let stemmed = known.get(word);
    if (stemmed === undefined) {
      if (known.size >= limit) known.clear();
      known.set(word, (stemmed = stem(word)));
    }
    return stemmed;
  };
}

function acceptable(word: string, proposed: string): boolean {
  if (word.startsWith(proposed)) return INFLECTION.test(word.slice(proposed.length));
  // Porter changes a final y to i ("deploy" → "deploi") and restores an e ("driving" → "drive").
  if (proposed.endsWith('i') && word.startsWith(proposed.slice(0, -1))) return /^(?:y|ies|ied|ys|yed|ying)$/.test(word.slice(proposed.length - 1));
  if (proposed.endsWith('e') && word.startsWith(proposed.slice(0, -1))) return /^(?:ing|ed|es)$/.test(word.slice(proposed.length - 1));
  return false;
}

/** A query word or an indexed token: its normalized surface form and its term (the stem). */
export interface Token {
  surface: string;
  term: string;
  /**
   * For a part of a compound written in the query ("front-end", "e-mail", "GitHubMCP"), the term of the compound
   * joined ("frontend"): the index holds it for every listing that writes the compound, and for those that write it
   * as one word, so a part matches it too.
   */
  joined?: string;
}

const MAX_SPAN_PARTS = 4;

/**
 * Index terms of a text: each part of each compound, and the joined form of every run of up to
 * MAX_SPAN_PARTS parts inside one compound ("find-skills" → find, skill, findskills; "GitHubMCP" → git,
 * hub, mcp, github, hubmcp, githubmcp), stop words left out. With `wholeText` the text is one compound
 * (names: "Google Drive" also yields "googledrive", so a query word written joined finds it).
 */
export function indexTerms(text: string, wholeText = false, stemOf: (word: string) => string = stem): string[] {
  const out: string[] = [];
  const groups = wholeText ? [compounds(text).flatMap(parts)] : compounds(text).map(parts);
  // Checked once per text: most hold no CJK, and the test per part and join was a regex each.
  const cjk = CJK.test(text) ? (part: string) => CJK.test(part) : () => false;
  for (const group of groups) {
    for (let i = 0; i < group.length; i++) {
      const part = group[i]!;
      // Names keep their stop words, so a listing named "do" or "the-agent" is found by its whole name.
      if (wholeText || !STOP_WORDS.has(part)) out.push(stemOf(part));
      // A symbol word is also found by its letters (q=net finds .NET), but not the other way round (q=c# is not c).
      const letters = lettersOf(part);
      if (letters !== undefined && !STOP_WORDS.has(letters)) out.push(stemOf(letters));
      // Pairs of CJK characters are not joined: they overlap, and their joins would be no word.
      if (cjk(part)) continue;
      let joined = part;
      for (let j = i + 1; j < group.length && j - i < MAX_SPAN_PARTS && !cjk(group[j]!); j++) {
        joined += group[j]!;
        out.push(stemOf(joined));
      }
    }
    if (group.length > MAX_SPAN_PARTS && !group.some(cjk)) out.push(stemOf(group.join('')));
  }
  return out;
}

/** The terms of a name that join two or more of its parts ("find-skills" → findskills), not a part's own. */
export function nameJoins(name: string, stemOf: (word: string) => string = stem): string[] {
  const own = new Set(compounds(name).flatMap(parts).map(stemOf));
  return indexTerms(name, true, stemOf).filter((term) => !own.has(term));
}

/**
 * Neighbouring words of running text joined as parseQuery joins a query's, with the stop words written between them
 * ("JSON Schema" → jsonschema, "speech to text" → speechtotext, up to MAX_SPAN_PARTS words). Only words of one
 * part join, and only across spaces: punctuation ends a run ("code. Review" is no pair), and so does a compound,
 * whose own joins indexTerms holds ("Google's API" is no "sapi"). The build indexes the pairs of a description
 * that some listing's name joins (nameJoins, KeywordIndexBuilder.addName).
 */
export function wordPairs(text: string, stemOf: (word: string) => string = stem): string[] {
  const out: string[] = [];
  // The last content word and the stop words after it (empty: no content word to join to).
  let run: string[] = [];
  let end = 0;
  for (const match of text.matchAll(COMPOUND)) {
    const compound = match[0];
    const spaced = onlySpaces(text, end, match.index);
    end = match.index + compound.length;
    // One part: a test of the part breaks, not parts()' split (this runs over every description of the build).
    const single = !PART_BREAK.test(compound) && !CJK.test(compound) && !IS_SYMBOL_WORD.test(compound);
    if (!single || !spaced) run = [];
    if (!single) continue;
    const word = normalize(compound);
    if (STOP_WORDS.has(word)) {
      if (run.length > 0) run.push(word);
      if (run.length >= MAX_SPAN_PARTS) run = [];
      continue;
    }
    if (run.length > 0) out.push(stemOf(run.join('') + word));
    run = [word];
  }
  return out;
}

/** Whether text[from, to) is blank: spaces, tabs and line breaks only. */
function onlySpaces(text: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9 && c !== 10 && c !== 13) return false;
  }
  return true;
}

/** Number of words a field counts for length normalization (parts, stop words included). */
export function fieldLength(text: string): number {
  let n = 0;
  for (const compound of compounds(text)) n += parts(compound).length;
  return n;
}

const APOSTROPHE = /['’]/;

/**
 * Whether a compound's parts are one word written in parts ("front-end", "GitHubMCP"), which a query also matches
 * joined. An apostrophe ends a possessive or a contraction ("client's", "don't"), not the parts of one word; the
 * parts of a CJK run are pairs of its characters.
 */
export function joinsParts(compound: string): boolean {
  return !APOSTROPHE.test(compound) && !CJK.test(compound);
}

/** The words of a query in order, stop words included: each part of each compound as a token (see parseQuery). */
function queryWords(query: string): Token[] {
  const all: Token[] = [];
  for (const compound of compounds(query)) {
    const words = parts(compound);
    if (words.length === 1) {
      all.push({ surface: words[0]!, term: stem(words[0]!) });
      continue;
    }
    if (!joinsParts(compound)) {
      for (const word of words) all.push({ surface: word, term: stem(word) });
      continue;
    }
    const whole = words.join('');
    if (words.every((word) => STOP_WORDS.has(word)) && !STOP_WORDS.has(whole)) {
      all.push({ surface: whole, term: stem(whole) });
      continue;
    }
    for (const word of words) all.push({ surface: word, term: stem(word), joined: stem(whole) });
  }
  return all;
}

/** Positions of the words that count: the content words, or every word of a query of stop words only. */
function countedWords(all: readonly Token[]): number[] {
  const content = all.flatMap((token, i) => (STOP_WORDS.has(token.surface) ? [] : [i]));
  return content.length > 0 ? content : all.map((_, i) => i);
}

/** A query as search reads it. */
export interface ParsedQuery {
  /**
   * Its words, in order, stop words dropped (unless the query is nothing else), repeats dropped. A part of a
   * compound carries the compound's joined term; a compound of stop words only ("to-do") is its joined word.
   */
  tokens: Token[];
  /**
   * Each pair of neighbouring words joined with the stop words written between them, as a listing's name joins
   * them when it writes them in that order (indexTerms): "speech to text" → speechtotext, which "Speech-to-Text"
   * holds and "text-to-speech" does not. Without the stop words the pair was "speechtext", which no name holds,
   * so word order went unrewarded.
   */
  phrases: string[];
}

export function parseQuery(query: string): ParsedQuery {
  const all = queryWords(query);
  const counted = countedWords(all);
  const seen = new Set<string>();
  const tokens: Token[] = [];
  for (const i of counted) {
    const token = all[i]!;
    if (seen.has(token.term)) continue;
    seen.add(token.term);
    tokens.push(token);
  }
  const phrases: string[] = [];
  for (let k = 0; k + 1 < counted.length; k++) {
    const from = counted[k]!;
    const to = counted[k + 1]!;
    if (to - from >= MAX_SPAN_PARTS) continue;
    let joined = '';
    for (let i = from; i <= to; i++) joined += all[i]!.surface;
    phrases.push(stem(joined));
  }
  return { tokens, phrases };
}

/** Key of a whole name or query for the exact-name match: normalized, separators and spaces dropped. */
export function nameKey(text: string): string {
  return compounds(text).flatMap(parts).join('');
}

/** 32-bit FNV-1a hash of a string (UTF-16 units), for per-listing keys stored as numbers. */
export function hash32(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}
