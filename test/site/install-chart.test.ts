// Guarantees the install-history chart (src/page-model/install-chart.ts) tells measured days from interpolated and
// synthetic ones: the bends of a linearly interpolated history are found as the measured snapshots, the SVG
// draws one point per day, a dot per measured day and the line style of the history's provenance, and a name
// cannot break out of its <title>.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { dayKinds, installChartSvg } from '../../src/page-model/install-chart.ts';

/** A 30-day cumulative history linearly interpolated between snapshots (day → total), rounded like the catalog. */
function interpolated(knots: Array<[number, number]>): number[] {
  const out: number[] = [];
  for (let k = 0; k < knots.length - 1; k++) {
    const [d0, v0] = knots[k]!;
    const [d1, v1] = knots[k + 1]!;
    for (let d = d0; d < d1; d++) out.push(Math.round(v0 + ((v1 - v0) * (d - d0)) / (d1 - d0)));
  }
  out.push(knots[knots.length - 1]![1]);
  return out;
}

describe('dayKinds', () => {
  it('finds the snapshots of an interpolated history where its slope changes, and both ends', () => {
    const history = interpolated([
      [0, 1000],
      [9, 1450],
      [21, 3300],
      [29, 3500],
    ]);
    expect(history).toHaveLength(30);
    const kinds = dayKinds(history, 'interpolated');
    const measured = kinds.flatMap((kind, day) => (kind === 'measured' ? [day] : []));
    expect(measured).toEqual([0, 9, 21, 29]);
  });

  it('calls every day synthetic or measured when the whole history is', () => {
    const history = interpolated([
      [0, 10],
      [29, 200],
    ]);
    expect(new Set(dayKinds(history, 'synthetic'))).toEqual(new Set(['synthetic']));
    expect(new Set(dayKinds(history, 'real'))).toEqual(new Set(['measured']));
  });

  it('keeps the interpolated histories of the snapshot to a few measured days each', () => {
    const lines = readFileSync('data/listings.jsonl', 'utf8').split('\n').filter(Boolean);
    let checked = 0;
    for (const line of lines) {
      const listing = JSON.parse(line) as { installsHistory: number[]; metrics: { history: 'interpolated' | 'synthetic' | 'real' } };
      if (listing.metrics.history !== 'interpolated') continue;
      const measured = dayKinds(listing.installsHistory, 'interpolated').filter((kind) => kind === 'measured').length;
      // The catalog's real snapshots fall on at most a handful of days of the 30-day window.
      expect(measured).toBeGreaterThanOrEqual(2);
      expect(measured).toBeLessThanOrEqual(8);
      if (++checked === 500) break;
    }
    expect(checked).toBe(500);
  });
});

describe('installChartSvg', () => {
  const history = interpolated([
    [0, 1000],
    [9, 1450],
    [21, 3300],
    [29, 3500],
  ]);

  it('draws one point per day, a dot per measured day, and says so in words', () => {
    const svg = installChartSvg(history, 'interpolated', 'pdf-tools');
    const points = /<polyline class="line line-interpolated" fill="none" points="([^"]+)"/.exec(svg)![1]!.split(' ');
    expect(points).toHaveLength(30);
    // Later days are further right and, the series growing, never lower on the chart.
    const xy = points.map((p) => p.split(',').map(Number) as [number, number]);
    for (let i = 1; i < xy.length; i++) {
      expect(xy[i]![0]).toBeGreaterThan(xy[i - 1]![0]);
      expect(xy[i]![1]).toBeLessThanOrEqual(xy[i - 1]![1]);
    }
    expect(svg.match(/<circle class="day-measured"/g)).toHaveLength(4);
    expect(svg).toContain('<title id="install-chart-title">Cumulative installs of pdf-tools, last 30 days</title>');
    expect(svg).toMatch(
      /<desc id="install-chart-desc">Cumulative installs \(the running total, not installs per day\) from 1,000 .* to 3,500 .*4 measured days \(dots\)/,
    );
  });

  it('dates its axis from the day the history ends, and counts days back without it', () => {
    const dated = installChartSvg(history, 'interpolated', 'pdf-tools', '2026-04-16');
    expect(dated).toContain('>2026-03-18</text>');
    expect(dated).toContain('>2026-04-16</text>');
    expect(dated).toContain('from 1,000 on 2026-03-18 to 3,500 on 2026-04-16');
    expect(installChartSvg(history, 'interpolated', 'pdf-tools')).toContain('>29 days before</text>');
  });

  it('leaves room for its longest value label: a seven-digit total is not cut', () => {
    const big = Array.from({ length: 30 }, (_, i) => 500_000 + i * 20_000);
    const svg = installChartSvg(big, 'real', 'find-skills');
    const label = /<text class="axis" x="([\d.]+)" y="[\d.]+" text-anchor="end">1,080,000<\/text>/.exec(svg);
    expect(label).not.toBeNull();
    // The label ends at x and runs about 7 px a character to its left: it starts inside the drawing.
    expect(Number(label![1]) - 7 * '1,080,000'.length).toBeGreaterThanOrEqual(0);
  });

  it('draws a synthetic history without dots, as a modelled line', () => {
    const svg = installChartSvg(history, 'synthetic', 'x');
    expect(svg).toContain('class="line line-synthetic"');
    expect(svg).not.toContain('<circle');
    expect(svg).toContain('not measured');
  });

  it('escapes the name', () => {
    const svg = installChartSvg(history, 'real', '</title><script>alert(1)</script>');
    expect(svg).not.toContain('<script>');
    expect(svg).toContain('&#60;/title&#62;&#60;script&#62;');
  });

  it('draws nothing for a history too short to be a line', () => {
    expect(installChartSvg([5], 'real', 'x')).toBe('');
  });
});
