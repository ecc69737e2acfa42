// The embeddable SVG badge of a listing's figure (GET /badges/{slug}.svg).
import { escapeXml } from '../../src/domain/escape-xml.ts';

/** A figure as a badge shows it: thousands and millions with a k or M suffix, one decimal below ten of them. */
export function compact(n: number): string {
  if (n >= 1e6) return `${(n / 1e6).toFixed(n >= 1e7 ? 0 : 1).replace(/\.0$/, '')}M`;
  if (n >= 1e3) return `${(n / 1e3).toFixed(n >= 1e4 ? 0 : 1).replace(/\.0$/, '')}k`;
  return String(n);
}

/** A flat two-part badge; widths from a fixed per-character estimate (no font metrics on the server). */
export function badgeSvg(label: string, value: string, synthetic: boolean): string {
  const width = (text: string) => 10 + Math.round(text.length * 6.5);
  const lw = width(label);
  const vw = width(value);
  const color = synthetic ? '#8c959f' : '#1f883d';
  const title = `${label}: ${value}${synthetic ? ' (synthetic figure)' : ''}`;
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" width="${lw + vw}" height="20" role="img" aria-label="${escapeXml(title)}"><title>${escapeXml(title)}</title>` +
    `<rect width="${lw}" height="20" fill="#555"/><rect x="${lw}" width="${vw}" height="20" fill="${color}"/>` +
    `<g fill="#fff" text-anchor="middle" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">` +
    `<text x="${lw / 2}" y="14">${escapeXml(label)}</text><text x="${lw + vw / 2}" y="14">${escapeXml(value)}</text></g></svg>`
  );
}
