// Guarantees the shared tokenizer: names split into their parts (keeping the joined form), case and
// diacritics folded, stop words dropped from queries, and a stemmer that only removes inflections, so a word
// is never collapsed onto an unrelated shorter one (the FlexSearch stemmer cut "notion" to "not").
import { describe, expect, it } from 'vitest';
import { compounds, indexTerms, nameJoins, nameKey, normalize, parseQuery, stem, wordPairs } from '../../src/search/tokenizer.ts';

describe('stem', () => {
  it.each([
    ['servers', 'server'],
    ['skills', 'skill'],
    ['notes', 'note'],
    ['drives', 'drive'],
    ['driving', 'drive'],
    ['registrations', 'registration'],
    ['vulnerabilities', 'vulnerability'],
    ['testing', 'test'],
    ['indices', 'index'],
    ['indexes', 'index'],
    ['vertices', 'vertex'],
    ['analyses', 'analysis'],
    ['hypotheses', 'hypothesis'],
    ['criteria', 'criterion'],
    ['children', 'child'],
    ['devices', 'device'],
    ['prices', 'price'],
  ])('%s and %s share a term', (inflected, base) => {
    expect(stem(inflected)).toBe(stem(base));
  });

  it.each([
    ['notion', 'not'],
    ['notion', 'note'],
    ['registration', 'registry'],
    ['registration', 'register'],
    ['remotion', 'remote'],
    ['drive', 'drawio'],
    ['driver', 'drive'],
    ['management', 'manage'],
    ['generation', 'general'],
    ['news', 'new'],
    ['basis', 'base'],
  ])('%s does not collapse onto %s', (word, other) => {
    expect(stem(word)).not.toBe(stem(other));
  });

  it('keeps words the index must not cut: derivations, short words, words with digits, js names', () => {
    for (const word of ['notion', 'remotion', 'registration', 'automation', 'mcp', 'api', 'aws', 's3', 'nextjs', 'redis', 'kubernetes'])
      expect(stem(word)).toBe(word);
  });
});

describe('indexTerms', () => {
  it('splits hyphenated, underscored, dotted and camel-cased names into parts and keeps the joined forms', () => {
    expect(indexTerms('find-skills')).toEqual(expect.arrayContaining(['find', stem('skills'), stem('findskills')]));
    expect(indexTerms('GitHubMCP')).toEqual(expect.arrayContaining(['github', 'mcp', 'githubmcp', 'git', 'hub']));
    expect(indexTerms('use_snake_case')).toEqual(expect.arrayContaining(['use', 'snake', stem('case')]));
    expect(indexTerms('Next.js')).toEqual(expect.arrayContaining(['next', 'js', 'nextjs']));
  });

  it('joins the words of a whole name so a query written joined finds it', () => {
    expect(indexTerms('Google Drive MCP', true)).toEqual(expect.arrayContaining(['googledrive', 'drivemcp', 'drive']));
    expect(indexTerms('Google Drive MCP')).not.toContain('googledrive');
  });

  it('folds case and diacritics', () => {
    expect(normalize('Café Ünïcode')).toBe('cafe unicode');
    expect(indexTerms('Café')).toEqual(['cafe']);
  });

  it('leaves stop words out of descriptions', () => {
    expect(indexTerms('the server for the browser')).toEqual([stem('server'), stem('browser')]);
  });
});

describe('parseQuery: phrases', () => {
  it('joins neighbouring words with the stop words between them, as names index them', () => {
    expect(parseQuery('speech to text').phrases).toEqual(['speechtotext']);
    expect(indexTerms('Speech-to-Text', true)).toContain('speechtotext');
    expect(indexTerms('Text-to-Speech', true)).not.toContain('speechtotext');
    expect(parseQuery('google drive files').phrases).toEqual(['googledrive', stem('drivefiles')]);
    expect(parseQuery('to-do list').phrases).toEqual([stem('todolist')]);
  });

  it('leaves out words too far apart for a name to join them, and a one-word query', () => {
    expect(parseQuery('slack and all of the teams').phrases).toEqual([]);
    expect(parseQuery('slack').phrases).toEqual([]);
    expect(parseQuery('the who').phrases).toEqual(['thewho']);
  });
});

describe('wordPairs: neighbouring words of a description, joined', () => {
  it('joins them as parseQuery joins a query, stop words between them included', () => {
    expect(wordPairs('Automated code review for pull requests')).toEqual(['automatedcod', 'codereview', stem('reviewforpull'), 'pullrequest']);
    expect(wordPairs('Convert speech to text')).toEqual(['convertspeech', 'speechtotext']);
    // The query's pair and the description's are the same term, so the phrase bonus finds it.
    expect(wordPairs('Convert speech to text')).toEqual(expect.arrayContaining(parseQuery('speech to text').phrases));
    expect(wordPairs('review the code')).not.toContain('codereview');
  });

  it('stops at punctuation, at a compound, a symbol word or CJK, and past MAX_SPAN_PARTS words', () => {
    expect(wordPairs('Write code. Review it')).toEqual(['writecod']);
    expect(wordPairs('code, review')).toEqual([]);
    // "Google's" is a compound (google, s): no "sapi"; its own joins are indexTerms' business.
    expect(wordPairs("Google's API key")).toEqual(['apikei']);
    expect(wordPairs('the GitHub-MCP server tools')).toEqual([stem('servertools')]);
    expect(wordPairs('learn C# and Rust')).toEqual([]);
    expect(wordPairs('data 微信 base')).toEqual([]);
    expect(wordPairs('one of the best')).toEqual(['oneofthebest']);
    expect(wordPairs('slack and all of the teams')).toEqual([]);
  });
});

describe('nameJoins', () => {
  it('holds the words a name writes in parts, not the parts themselves', () => {
    expect(nameJoins('requesting-code-review')).toEqual(expect.arrayContaining(['codereview', 'requestingcod', stem('requestingcodereview')]));
    expect(nameJoins('requesting-code-review')).not.toContain('code');
    expect(nameJoins('setup-wizard')).toEqual(['setupwizard']);
    expect(nameJoins('GitHubMCP')).toEqual(expect.arrayContaining(['github', 'githubmcp']));
    expect(nameJoins('skills')).toEqual([]);
  });
});

describe('parseQuery: tokens', () => {
  it('drops stop words and repeats, keeps the typed form for prefix matching', () => {
    expect(parseQuery('How do I find the best skills for Notion? skill').tokens).toEqual([
      { surface: 'find', term: 'find' },
      { surface: 'best', term: 'best' },
      { surface: 'skills', term: stem('skills') },
      { surface: 'notion', term: 'notion' },
    ]);
  });

  it('keeps a query made only of stop words', () => {
    expect(parseQuery('the').tokens.map((t) => t.surface)).toEqual(['the']);
  });

  it('splits a query the way names are split', () => {
    expect(parseQuery('find-skills').tokens.map((t) => t.surface)).toEqual(['find', 'skills']);
  });
});

describe('compounds in a query', () => {
  it('gives each part of a compound the joined compound too', () => {
    expect(parseQuery('front-end').tokens).toEqual([
      { surface: 'front', term: 'front', joined: 'frontend' },
      { surface: 'end', term: 'end', joined: 'frontend' },
    ]);
    expect(parseQuery('GitHubMCP').tokens.map((t) => t.joined)).toEqual(['githubmcp', 'githubmcp', 'githubmcp']);
    expect(parseQuery('plug-in').tokens).toEqual([{ surface: 'plug', term: 'plug', joined: 'plugin' }]);
    expect(parseQuery('slack bot').tokens.every((t) => t.joined === undefined)).toBe(true);
  });

  it('reads a compound of stop words as its joined word, and a possessive or contraction as no compound', () => {
    expect(parseQuery('to-do app').tokens).toEqual([
      { surface: 'todo', term: 'todo' },
      { surface: 'app', term: 'app' },
    ]);
    expect(parseQuery("client's").tokens.every((t) => t.joined === undefined)).toBe(true);
    expect(parseQuery("don't stop").tokens.every((t) => t.joined === undefined)).toBe(true);
  });
});

describe('CJK text', () => {
  it('is read as overlapping pairs of characters, a lone character as itself', () => {
    expect(indexTerms('小红书')).toEqual(['小红', '红书']);
    expect(parseQuery('微信公众号').tokens.map((t) => t.term)).toEqual(['微信', '信公', '公众', '众号']);
    expect(indexTerms('书')).toEqual(['书']);
  });

  it('keeps the other letters of a part as their own word and joins no pair', () => {
    expect(indexTerms('xhs小红书工具')).toEqual(['xhs', '小红', '红书', '书工', '工具']);
    expect(indexTerms('飞书-docs', true)).toEqual(expect.arrayContaining(['飞书', 'doc']));
    expect(indexTerms('飞书-docs', true).filter((term) => term.includes('飞书') && term !== '飞书')).toEqual([]);
    expect(parseQuery('小红书').tokens.every((t) => t.joined === undefined)).toBe(true);
  });

  it('keeps Hangul syllables whole and folds Latin diacritics as before', () => {
    expect(normalize('한국어')).toBe('한국어');
    expect(parseQuery('데이터베이스').tokens.map((t) => t.term)).toEqual(['데이', '이터', '터베', '베이', '이스']);
    expect(normalize('Café')).toBe('cafe');
  });
});

describe('symbol words', () => {
  it.each([
    ['C#', ['C#']],
    ['c++', ['c++']],
    ['F# scripts', ['F#', 'scripts']],
    ['C/C++ and C#', ['C', 'C++', 'and', 'C#']],
    ['clang/C++', ['clang', 'C++']],
    ['C++20', ['C++', '20']],
    ['.NET Core', ['.NET', 'Core']],
    ['C#/.NET', ['C#', '.NET']],
    ['uses .env files', ['uses', '.env', 'files']],
    ['.NET-based', ['.NET', 'based']],
    ['foo-c#', ['foo', 'c#']],
  ])('%s is read as %j', (text, expected) => {
    expect(compounds(text)).toEqual(expected);
  });

  it('keeps words where the symbols are not part of a word: inside names, after three letters, hashtags', () => {
    expect(compounds('ASP.NET')).toEqual(['ASP.NET']);
    expect(compounds('Node.js')).toEqual(['Node.js']);
    expect(compounds('abc++')).toEqual(['abc']);
    expect(compounds('#hashtag')).toEqual(['hashtag']);
    expect(compounds('example.com')).toEqual(['example.com']);
    expect(indexTerms('ASP.NET')).not.toContain('.net');
  });

  it('indexes a symbol word and its letters; a query for the symbol word asks for the symbol word only', () => {
    expect(indexTerms('Written in C# for .NET')).toEqual(expect.arrayContaining(['c#', 'c', '.net', 'net']));
    expect(parseQuery('c#').tokens.map((t) => t.term)).toEqual(['c#']);
    expect(parseQuery('C++ .NET f#').tokens.map((t) => t.term)).toEqual(['c++', '.net', 'f#']);
    // The letter c of a query is not c#: a C# listing is found by c only through the letters it also indexes.
    expect(parseQuery('c').tokens.map((t) => t.term)).toEqual(['c']);
  });

  it('gives a name with a symbol word its own exact-name key', () => {
    expect(nameKey('C# MCP')).toBe(nameKey('c# mcp'));
    expect(nameKey('C# MCP')).not.toBe(nameKey('C MCP'));
  });
});

describe('numbers with dots', () => {
  it('are one word: a dot between two digits does not split', () => {
    expect(indexTerms('oauth 2.0 and Python 3.12+')).toEqual(['oauth', '2.0', 'python', '3.12']);
    expect(parseQuery('oauth 2.0').tokens.map((t) => t.term)).toEqual(['oauth', '2.0']);
    expect(indexTerms('listens on 127.0.0.1')).toEqual(['listen', '127.0.0.1']);
    // No joined "20" or "312" for a name or a query to meet by accident.
    expect(indexTerms('remote-mcp-server-20', true)).not.toContain('2.0');
    expect(indexTerms('Python 3.12')).not.toContain('312');
  });

  it('still split at a dot beside a letter, and join with the words of their compound', () => {
    expect(indexTerms('node.js 20.x')).toEqual(['node', 'nodejs', 'js', '20', '20x', 'x']);
    expect(indexTerms('gpt-4.1-mini', true)).toEqual(expect.arrayContaining(['gpt', '4.1', 'mini', 'gpt4.1', 'gpt4.1mini']));
    expect(parseQuery('gpt-4.1').tokens).toEqual([
      { surface: 'gpt', term: 'gpt', joined: 'gpt4.1' },
      { surface: '4.1', term: '4.1', joined: 'gpt4.1' },
    ]);
  });
});

describe('nameKey', () => {
  it('is the same for a name and the query that spells it with spaces or other separators', () => {
    expect(nameKey('find-skills')).toBe(nameKey('Find Skills'));
    expect(nameKey('GitHub_MCP')).toBe(nameKey('github mcp'));
    expect(nameKey('find-skills')).not.toBe(nameKey('find-skill-set'));
  });
});
