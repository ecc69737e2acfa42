// The install-history chart of a listing page: an inline SVG drawn at build time (no client JavaScript) from
// the 30 daily cumulative totals, honest about where each day came from (metrics.history):
//   interpolated  the catalog linearly interpolated between real snapshots (data/README.md), so
//                 the days where the slope changes, and the last day, are the measured ones: drawn as dots on
//                 a dashed line (the interpolated days between them);
//   synthetic     modelled from the installs figure, not measured: a dotted grey line and no dots;
//   real          every day measured: a solid line with a dot per day.
// The SVG carries a <title> and <desc> in words, so the figure is readable without seeing it.
import type { z } from 'zod';
import type { MetricsProvenanceSchema } from '../domain/schemas.ts';
import { escapeXml } from '../domain/escape-xml.ts';
import { formatCount } from './format.ts';

type HistoryProvenance = z.infer<typeof MetricsProvenanceSchema>['history'];

export const CHART = { width: 600, height: 160, padLeft: 56, padRight: 12, padTop: 12, padBottom: 24 } as const;

export type DayKind = 'measured' | 'interpolated' | 'synthetic';

/** Width of one character of an axis label, for the label margin. */
const LABEL_CHAR_PX = 7;

/**
 * What each day is: for an interpolated history, a day is measured where the series bends (the second
 * difference exceeds rounding: interpolation between two snapshots is a straight line up to ±1 per day,
 * and the catalog's 3-significant-digit rounding stays within `tolerance` of it), and the first and last days,
 * which bound the window.
 */
export function dayKinds(history: ArrayLike<number>, provenance: HistoryProvenance): DayKind[] {
  const n = history.length;
  if (provenance === 'synthetic') return Array.from({ length: n }, () => 'synthetic');
  if (provenance === 'real') return Array.from({ length: n }, () => 'measured');
  const kinds: DayKind[] = Array.from({ length: n }, () => 'interpolated');
  if (n === 0) return kinds;
  kinds[0] = 'measured';
  kinds[n - 1] = 'measured';
  for (let i = 1; i < n - 1; i++) {
    const bend = Math.abs(history[i + 1]! - 2 * history[i]! + history[i - 1]!);
    const tolerance = Math.max(2, 0.002 * history[i]!);
    if (bend > tolerance) kinds[i] = 'measured';
  }
  return kinds;
}

const round = (x: number) => Math.round(x * 10) / 10;

/**
 * The chart as an SVG element (a string for set:html). `lastDay` (the listing's installsAsOf) dates the axis; a
 * history without it counts days back from the latest.
 */
export function installChartSvg(history: ArrayLike<number>, provenance: HistoryProvenance, name: string, lastDay?: string): string {
  const n = history.length;
  if (n < 2) return '';
  const { width, height, padRight, padTop, padBottom } = CHART;
  const values = Array.from(history);
  // A loop rather than Math.max(...values): the history comes from the export, and a spread puts it on the stack.
  let max = -Infinity;
  let min = Infinity;
  for (const value of values) {
    if (value > max) max = value;
    if (value < min) min = value;
  }
  // The axis starts at the first value rounded down, so growth is visible even on a large total.
  const low = min === max ? 0 : min - (max - min) * 0.05;
  const high = max === low ? low + 1 : max;
  const topLabel = formatCount(high);
  const bottomLabel = formatCount(Math.max(0, Math.round(low)));
  // Room for the longer value label at the axis font (about 7 px a character), so "1,100,000" is not cut.
  const padLeft = Math.max(CHART.padLeft, 12 + LABEL_CHAR_PX * Math.max(topLabel.length, bottomLabel.length));
  // With the day the history ends (metrics.installsAsOf), the axis is dated; without it, days count back.
  const end = lastDay && !Number.isNaN(Date.parse(lastDay)) ? new Date(`${lastDay.slice(0, 10)}T00:00:00Z`) : undefined;
  const dayLabel = (back: number) => (end ? new Date(end.getTime() - back * 86_400_000).toISOString().slice(0, 10) : undefined);
  const x = (i: number) => round(padLeft + (i * (width - padLeft - padRight)) / (n - 1));
  const y = (v: number) => round(padTop + (1 - (v - low) / (high - low)) * (height - padTop - padBottom));
  const kinds = dayKinds(values, provenance);
  const points = values.map((v, i) => `${x(i)},${y(v)}`).join(' ');
  const first = dayLabel(n - 1) ?? `${n - 1} days before the latest`;
  const latest = dayLabel(0) ?? 'the latest day';
  const measured = kinds.filter((k) => k === 'measured').length;
  const how =
    provenance === 'synthetic'
      ? 'Modelled from the installs figure, not measured (synthetic history).'
      : provenance === 'real'
        ? 'Every day measured.'
        : `${measured} measured ${measured === 1 ? 'day' : 'days'} (dots); the days between them are linearly interpolated (dashed).`;
  const desc = `Cumulative installs (the running total, not installs per day) from ${formatCount(values[0]!)} on ${first} to ${formatCount(values[n - 1]!)} on ${latest}. ${how}`;
  const dots = kinds
    .map((kind, i) =>
      kind === 'measured'
        ? `<circle class="day-measured" cx="${x(i)}" cy="${y(values[i]!)}" r="3"><title>${values[i]} installs (measured)</title></circle>`
        : '',
    )
    .join('');
  const labels = [
    `<text class="axis" x="${padLeft - 6}" y="${y(high) + 4}" text-anchor="end">${topLabel}</text>`,
    `<text class="axis" x="${padLeft - 6}" y="${y(low) + 4}" text-anchor="end">${bottomLabel}</text>`,
    `<text class="axis" x="${padLeft}" y="${height - 6}">${dayLabel(n - 1) ?? `${n - 1} days before`}</text>`,
    `<text class="axis" x="${width - padRight}" y="${height - 6}" text-anchor="end">${dayLabel(0) ?? 'latest day'}</text>`,
  ].join('');
  return (
    `<svg class="install-chart history-${provenance}" role="img" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}" aria-labelledby="install-chart-title" aria-describedby="install-chart-desc" xmlns="http://www.w3.org/2000/svg">` +
    `<title id="install-chart-title">Cumulative installs of ${escapeXml(name)}, last ${n} days</title>` +
    `<desc id="install-chart-desc">${escapeXml(desc)}</desc>` +
    `<line class="grid" x1="${padLeft}" y1="${y(low)}" x2="${width - padRight}" y2="${y(low)}"/>` +
    `<polyline class="line line-${provenance}" fill="none" points="${points}"/>` +
    dots +
    labels +
    `</svg>`
  );
}
