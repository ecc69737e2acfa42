// Guarantees a figure is never shown as measured unless its metrics say real: synthetic figures are rounded,
// marked ≈ and labelled estimated; real ones carry their source and date; type names read right inside a sentence.
import { describe, expect, it } from 'vitest';
import { figure, truncate, typeNoun, type FigureSource } from '../../src/page-model/format.ts';

const listing = (metrics: Partial<FigureSource['metrics']>, installs = 320_400, stars = 25_213): FigureSource => ({
  installs,
  stars,
  metrics: { installs: 'synthetic', stars: 'synthetic', history: 'synthetic', ...metrics },
});

describe('figure', () => {
  it.each([
    [listing({ installs: 'real', installsAsOf: '2026-04-16' }), 'installs', '320,400 installs', 'real, as of 2026-04-16'],
    [listing({ stars: 'real', starsSource: 'skills.sh', starsAsOf: '2026-04-16' }), 'stars', '25,213 stars', 'real, skills.sh, as of 2026-04-16'],
    [listing({ stars: 'real' }), 'stars', '25,213 stars', 'real'],
    [listing({}), 'installs', '≈ 320,000 installs', 'estimated — synthetic'],
    [listing({}), 'stars', '≈ 25,000 stars', 'estimated — synthetic'],
    [listing({}, 1_234, 42), 'installs', '≈ 1,200 installs', 'estimated — synthetic'],
    [listing({}, 1_234, 42), 'stars', '≈ 42 stars', 'estimated — synthetic'],
    [listing({ installs: 'real' }, 1), 'installs', '1 install', 'real'],
  ] as const)('%#: %s → "%s (%s)"', (source, metric, text, provenance) => {
    const f = figure(source, metric);
    expect({ text: f.text, provenance: f.provenance, real: f.real }).toEqual({ text, provenance, real: provenance.startsWith('real') });
  });
});

describe('truncate', () => {
  it('keeps short text and cuts long text on a word boundary with an ellipsis', () => {
    expect(truncate('  a  short\n text ', 40)).toBe('a short text');
    expect(truncate('React and Next.js performance optimization guidelines from Vercel Engineering.', 40)).toBe('React and Next.js performance…');
  });
});

describe('typeNoun', () => {
  it.each([
    ['skill', false, 'skill'],
    ['skill', true, 'skills'],
    ['mcp', false, 'MCP server'],
    ['mcp', true, 'MCP servers'],
    ['marketplace', true, 'marketplaces'],
  ] as const)('%s (plural %s) reads "%s" inside a sentence', (type, plural, noun) => {
    expect(typeNoun(type, plural)).toBe(noun);
  });
});
