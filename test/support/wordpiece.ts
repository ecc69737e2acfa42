// BERT-style WordPiece tokenization, replicated from @huggingface/tokenizers (the code path that
// transformers.js runs for our tokenizer.json), so that training sees exactly the token ids the
// runtime pipeline will feed the model. test/embeddings/tokenizer.test.ts compares both on the
// catalog corpus; if the library changes behaviour, that test is the one that fails.

export const SPECIAL_TOKENS = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'] as const;
export const PAD_ID = 0;
export const UNK_ID = 1;
export const CLS_ID = 2;
export const SEP_ID = 3;
export const MASK_ID = 4;
export const SUBWORD_PREFIX = '##';
export const MAX_INPUT_CHARS_PER_WORD = 100;

// Same character class as the library's PUNCTUATION_REGEX (Unicode P plus all ASCII symbols).
const PUNCT = '\\p{P}\\u0021-\\u002F\\u003A-\\u0040\\u005B-\\u0060\\u007B-\\u007E';
const PRE_TOKEN_RE = new RegExp(`[^\\s${PUNCT}]+|[${PUNCT}]`, 'gu');
const CONTROL_RE = /^\p{Cc}|\p{Cf}|\p{Co}|\p{Cs}$/u;
const SPACE_RE = /^\s$/;
const MN_RE = /\p{Mn}/gu;
const SPECIAL_SPLIT_RE = /\[(?:PAD|UNK|CLS|SEP|MASK)\]/g;
// Quick test for "needs the slow path": anything outside printable ASCII.
const NON_ASCII_OR_CTRL_RE = /[^\x20-\x7e]/;

function isChineseChar(cp: number): boolean {
  return (
    (cp >= 0x4e00 && cp <= 0x9fff) ||
    (cp >= 0x3400 && cp <= 0x4dbf) ||
    (cp >= 0x20000 && cp <= 0x2a6df) ||
    (cp >= 0x2a700 && cp <= 0x2b73f) ||
    (cp >= 0x2b740 && cp <= 0x2b81f) ||
    (cp >= 0x2b820 && cp <= 0x2ceaf) ||
    (cp >= 0xf900 && cp <= 0xfaff) ||
    (cp >= 0x2f800 && cp <= 0x2fa1f)
  );
}

/** BertNormalizer with clean_text, handle_chinese_chars, lowercase and strip_accents. */
export function normalizeText(text: string): string {
  if (NON_ASCII_OR_CTRL_RE.test(text)) {
    let out = '';
    for (const ch of text) {
      const cp = ch.charCodeAt(0);
      if (cp === 0 || cp === 0xfffd) continue;
      if (ch !== '\t' && ch !== '\n' && ch !== '\r' && CONTROL_RE.test(ch)) continue;
      out += SPACE_RE.test(ch) ? ' ' : ch;
    }
    // The library walks UTF-16 units here (charCodeAt), so astral CJK is never spaced out.
    let spaced = '';
    for (let i = 0; i < out.length; i++) {
      const c = out[i]!;
      spaced += isChineseChar(c.charCodeAt(0)) ? ` ${c} ` : c;
    }
    return spaced.toLowerCase().normalize('NFD').replace(MN_RE, '');
  }
  return text.toLowerCase();
}

/** BertPreTokenizer: whitespace split, every punctuation character is its own word. */
export function preTokenize(normalized: string): string[] {
  return normalized.trim().match(PRE_TOKEN_RE) ?? [];
}

/** Words of a raw text, in order, as the runtime tokenizer sees them (special tokens excluded). */
export function words(text: string): string[] {
  const out: string[] = [];
  for (const part of text.split(SPECIAL_SPLIT_RE)) {
    if (part.length === 0) continue;
    const ws = preTokenize(normalizeText(part));
    for (const w of ws) out.push(w);
  }
  return out;
}

export class WordPieceEncoder {
  readonly vocab: Map<string, number>;
  private readonly cache = new Map<string, number[]>();

  constructor(vocab: Map<string, number>) {
    this.vocab = vocab;
  }

  /** Greedy longest-match-first WordPiece, identical to the library's WordPieceTokenizer. */
  encodeWord(word: string): number[] {
    const cached = this.cache.get(word);
    if (cached !== undefined) return cached;
    const chars = [...word];
    let result: number[];
    if (chars.length > MAX_INPUT_CHARS_PER_WORD) {
      result = [UNK_ID];
    } else {
      result = [];
      let start = 0;
      while (start < chars.length) {
        let end = chars.length;
        let id = -1;
        while (start < end) {
          let sub = chars.slice(start, end).join('');
          if (start > 0) sub = SUBWORD_PREFIX + sub;
          const hit = this.vocab.get(sub);
          if (hit !== undefined) {
            id = hit;
            break;
          }
          end--;
        }
        if (id < 0) {
          result = [UNK_ID];
          break;
        }
        result.push(id);
        start = end;
      }
    }
    if (this.cache.size < 1_000_000) this.cache.set(word, result);
    return result;
  }

  /** Token ids of a text without [CLS]/[SEP]; literal special tokens in the text map to their ids. */
  encode(text: string): number[] {
    const out: number[] = [];
    let last = 0;
    SPECIAL_SPLIT_RE.lastIndex = 0;
    const pushPart = (part: string): void => {
      if (part.length === 0) return;
      for (const w of preTokenize(normalizeText(part))) {
        for (const id of this.encodeWord(w)) out.push(id);
      }
    };
    for (const m of text.matchAll(SPECIAL_SPLIT_RE)) {
      pushPart(text.slice(last, m.index));
      out.push(SPECIAL_TOKENS.indexOf(m[0] as (typeof SPECIAL_TOKENS)[number]));
      last = m.index + m[0].length;
    }
    pushPart(text.slice(last));
    return out;
  }
}

/** tokenizer.json for the HF tokenizers format (BERT uncased pipeline). */
export function tokenizerJson(vocabList: readonly string[]): object {
  const vocab: Record<string, number> = {};
  vocabList.forEach((t, i) => {
    vocab[t] = i;
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: SPECIAL_TOKENS.map((content, id) => ({
      id,
      content,
      single_word: false,
      lstrip: false,
      rstrip: false,
      normalized: false,
      special: true,
    })),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [CLS_ID], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [SEP_ID], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: SUBWORD_PREFIX, cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: SUBWORD_PREFIX,
      max_input_chars_per_word: MAX_INPUT_CHARS_PER_WORD,
      vocab,
    },
  };
}

export function tokenizerConfigJson(maxLength: number): object {
  return {
    tokenizer_class: 'BertTokenizer',
    do_lower_case: true,
    strip_accents: null,
    tokenize_chinese_chars: true,
    clean_up_tokenization_spaces: true,
    model_max_length: maxLength,
    pad_token: '[PAD]',
    unk_token: '[UNK]',
    cls_token: '[CLS]',
    sep_token: '[SEP]',
    mask_token: '[MASK]',
  };
}

export interface VocabOptions {
  /** Whole words kept, most frequent first. */
  maxWords: number;
  /** A word (or piece) must occur at least this often to enter the vocabulary. */
  minCount: number;
  /** Continuation pieces (##suffix) kept for words outside the vocabulary. */
  maxSubwords: number;
}

const HAS_ALNUM_RE = /[\p{L}\p{N}]/u;

function byCountThenText(a: [string, number], b: [string, number]): number {
  if (b[1] !== a[1]) return b[1] - a[1];
  return a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0;
}

/**
 * Builds the vocabulary from word counts: special tokens, the frequent whole words, the
 * characters seen (as start and continuation pieces) and the most common word endings, so that a
 * word outside the vocabulary still splits into known pieces instead of becoming [UNK]. Tokens
 * without a letter or digit (punctuation, emoji) are left out on purpose: they map to [UNK], whose
 * embedding row is zero, so they carry no weight.
 */
export function buildVocab(wordCounts: Map<string, number>, options: VocabOptions): string[] {
  const entries: [string, number][] = [];
  for (const e of wordCounts) {
    if (e[1] >= options.minCount && HAS_ALNUM_RE.test(e[0]) && [...e[0]].length <= MAX_INPUT_CHARS_PER_WORD) {
      entries.push(e);
    }
  }
  entries.sort(byCountThenText);
  const vocab: string[] = [...SPECIAL_TOKENS];
  const seen = new Set<string>(vocab);
  const add = (t: string): void => {
    if (!seen.has(t)) {
      seen.add(t);
      vocab.push(t);
    }
  };
  const kept = new Set<string>();
  for (let i = 0; i < entries.length && kept.size < options.maxWords; i++) {
    kept.add(entries[i]![0]);
    add(entries[i]![0]);
  }
  const charCounts = new Map<string, number>();
  const suffixCounts = new Map<string, number>();
  for (const [w, c] of wordCounts) {
    const chars = [...w];
    if (chars.length > MAX_INPUT_CHARS_PER_WORD) continue;
    for (const ch of chars) {
      if (HAS_ALNUM_RE.test(ch)) charCounts.set(ch, (charCounts.get(ch) ?? 0) + c);
    }
    if (kept.has(w) || chars.length < 4) continue;
    for (let len = 2; len <= 6 && len < chars.length - 1; len++) {
      const s = chars.slice(chars.length - len).join('');
      if (HAS_ALNUM_RE.test(s)) suffixCounts.set(s, (suffixCounts.get(s) ?? 0) + c);
    }
  }
  const charsSorted = [...charCounts].filter((e) => e[1] >= options.minCount).sort(byCountThenText);
  for (const [ch] of charsSorted) add(ch);
  for (const [ch] of charsSorted) add(SUBWORD_PREFIX + ch);
  const suffixes = [...suffixCounts].filter((e) => e[1] >= options.minCount * 5).sort(byCountThenText);
  for (let i = 0; i < suffixes.length && i < options.maxSubwords; i++) add(SUBWORD_PREFIX + suffixes[i]![0]);
  return vocab;
}
