// How the pages (and the /browse script) word a listing's figures. One place, so a synthetic number is never
// printed as a measured one: every installs or stars figure goes through `figure`.
import { TYPE_LABELS, type ListingType } from '../domain/listing/listing-types.ts';
import type { Listing } from '../domain/schemas.ts';

export type Metric = 'installs' | 'stars';

/** The fields a figure needs; the API's Listing and the build's stored listing both have them. */
export type FigureSource = Pick<Listing, 'installs' | 'stars' | 'metrics'>;

export interface Figure {
  metric: Metric;
  value: number;
  real: boolean;
  /** e.g. "320,400 installs" or "≈ 1,200 stars": the number as a reader sees it. */
  text: string;
  /** e.g. "real, skills.sh, as of 2026-04-16" or "estimated — synthetic": where the number comes from. */
  provenance: string;
}

const NUMBER = new Intl.NumberFormat('en-US');

export function formatCount(value: number): string {
  return NUMBER.format(value);
}

/** A synthetic figure is shown rounded to two significant digits with ≈, so it cannot pass for a count. */
function estimate(value: number): string {
  if (value < 100) return NUMBER.format(value);
  const magnitude = 10 ** (Math.floor(Math.log10(value)) - 1);
  return NUMBER.format(Math.round(value / magnitude) * magnitude);
}

export function figure(listing: FigureSource, metric: Metric): Figure {
  const value = listing[metric];
  const real = listing.metrics[metric] === 'real';
  const unit = metric === 'installs' ? (value === 1 ? 'install' : 'installs') : value === 1 ? 'star' : 'stars';
  if (!real) return { metric, value, real, text: `≈ ${estimate(value)} ${unit}`, provenance: 'estimated — synthetic' };
  const source = metric === 'stars' ? listing.metrics.starsSource : undefined;
  const asOf = metric === 'stars' ? listing.metrics.starsAsOf : listing.metrics.installsAsOf;
  const provenance = ['real', source, asOf && `as of ${asOf}`].filter(Boolean).join(', ');
  return { metric, value, real, text: `${formatCount(value)} ${unit}`, provenance };
}

/** "2026-04-14" from an ISO 8601 time; the input unchanged when it does not parse. */
export function formatDate(iso: string): string {
  const time = Date.parse(iso);
  return Number.isNaN(time) ? iso : new Date(time).toISOString().slice(0, 10);
}

export function typeLabel(type: ListingType, plural = false): string {
  return plural ? TYPE_LABELS[type].plural : TYPE_LABELS[type].singular;
}

/** The type as a word inside a sentence: "skills", "MCP servers" (an acronym keeps its capitals). */
export function typeNoun(type: ListingType, plural = false): string {
  const label = typeLabel(type, plural);
  return /^[A-Z]{2}/.test(label) ? label : label.charAt(0).toLowerCase() + label.slice(1);
}

/** Plain text cut on a word boundary, for list summaries and meta descriptions. */
export function truncate(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max * 0.6 ? cut.slice(0, space) : cut).replace(/[\s.,;:]+$/, '')}…`;
}

export const NO_DESCRIPTION = 'No description was published.';
