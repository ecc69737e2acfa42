// Guarantees /docs/ranking states the formulas the code computes: the trending block, evaluated as written,
// equals trendingScore over the newest TRENDING_HISTORY_DAYS days, its constants are the code's, and the
// searchTrend weights are SEARCH_TREND_WEIGHTS.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { TRENDING_HISTORY_DAYS } from '../../build/stages/index-stage.ts';
import { SEARCH_TREND_WEIGHTS, searchTrendScore, TRENDING_DAMPING, TRENDING_WINDOW_DAYS, trendingScore } from '../../src/domain/listing/ranking.ts';

const doc = readFileSync('src/docs/ranking.md', 'utf8');
const section = (title: string) => doc.split(/^## /m).find((s) => s.startsWith(`${title}\n`)) ?? '';
const trendingSection = section('trending');
const formula = /```\n([\s\S]*?)```/.exec(trendingSection)?.[1] ?? '';

/** The documented formula as a function of the history, by translating its notation and nothing else. */
function documentedTrending(history: readonly number[]): number {
  const js = formula
    .trim()
    .split('\n')
    .map((line) => {
      const [name, expression] = line.split('=').map((part) => part.trim()) as [string, string];
      const code = expression
        .replace(/installs\[today - (\d+)\]/g, 'h[h.length - 1 - $1]')
        .replace(/installs\[today\]/g, 'h[h.length - 1]')
        .replace(/sqrt\(/g, 'Math.sqrt(');
      return `const ${name} = ${code};`;
    })
    .join('\n');
  return new Function('h', `${js}\nreturn trending;`)(history) as number;
}

let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
const history = (days: number, pace: number, burst: number): number[] => {
  const h: number[] = [Math.floor(random() * 1000)];
  for (let i = 1; i < days; i++) h.push(h[i - 1]! + Math.floor(random() * pace) + (i >= days - TRENDING_WINDOW_DAYS ? burst : 0));
  return h;
};

describe('/docs/ranking', () => {
  it('has the trending formula block with three definitions', () => {
    expect(
      formula
        .trim()
        .split('\n')
        .map((line) => line.split('=')[0]!.trim()),
    ).toEqual(['recent', 'expected', 'trending']);
  });

  it("names the code's constants: history length, window and damping", () => {
    expect(trendingSection).toContain(`the newest ${TRENDING_HISTORY_DAYS} days`);
    expect(formula).toContain(`installs[today - ${TRENDING_WINDOW_DAYS}]`);
    expect(formula).toContain(`installs[today - ${TRENDING_HISTORY_DAYS - 1}]`);
    expect(formula).toContain(`/ ${TRENDING_HISTORY_DAYS - 1 - TRENDING_WINDOW_DAYS} * ${TRENDING_WINDOW_DAYS}`);
    expect(formula).toContain(`sqrt(expected + ${TRENDING_DAMPING})`);
    expect(trendingSection).toContain(`+ ${TRENDING_DAMPING}\``);
    expect(doc).toContain(`last ${TRENDING_WINDOW_DAYS} days`);
  });

  it.each([
    ['steady growth', 30, 50, 0],
    ['a burst in the last week', 30, 50, 400],
    ['a longer stored history (the build reads the newest days)', 45, 20, 90],
    ['tiny counts', 30, 2, 1],
    ['no growth', 30, 0, 0],
  ])('evaluated as written, the formula equals trendingScore (%s)', (_, days, pace, burst) => {
    for (let run = 0; run < 20; run++) {
      const full = history(days, pace, burst);
      const window = full.slice(-TRENDING_HISTORY_DAYS);
      // trendingScore rounds to 3 decimals; the documented formula does not.
      expect(Math.abs(trendingScore(window) - documentedTrending(window))).toBeLessThanOrEqual(0.0005 + 1e-9);
    }
  });

  it('states the searchTrend weights of the code', () => {
    const stated = /searchTrend = ln\(1 \+ appearances \+ (\d+) × opens\)/.exec(section('searchTrend'));
    expect(SEARCH_TREND_WEIGHTS.appeared).toBe(1);
    expect(Number(stated?.[1])).toBe(SEARCH_TREND_WEIGHTS.opened);
    expect(searchTrendScore({ appeared: 3, opened: 2 })).toBeCloseTo(Math.log(1 + 3 + Number(stated?.[1]) * 2), 3);
  });
});
