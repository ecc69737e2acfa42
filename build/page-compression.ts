// Which of the renderers' files get .br and .gz siblings. Shared by the renderer, which lists them as it counts its
// pages (build/astro-build.ts), and the site stage, which compresses what the lists name (site-stage.ts precompress):
// the stage no longer walks the merged site, whose walks held its main thread for minutes at a million listings
// (bench/records/2026-11-28-session-7.md).

/** Smaller files are served as they are: the encoding would cost more than it saves. */
export const COMPRESS_MIN_BYTES = 512;

/** The files a renderer writes that are worth compressing at all, by name. */
export const COMPRESSIBLE = /\.(?:html|css|js|mjs|txt|svg|xml|json)$/;

/**
 * Pages smaller than this are served as they are. A page that fits in TCP's initial congestion window (10
 * segments) arrives in one round trip compressed or not, and most listing pages fit. Precompressing every page cost
 * as much as rendering them, mostly in creating files, for a few KB a page view
 * (bench/records/2026-11-22-site-precompression.md). Larger pages (skills with their files,
 * category, type and home pages) and every stylesheet and script get .br and .gz.
 */
export const PAGE_COMPRESS_MIN_BYTES = 14 * 1024;

/** Whether a renderer's file of this path (relative to the site) and size gets .br and .gz. */
export function worthCompressing(path: string, bytes: number): boolean {
  return COMPRESSIBLE.test(path) && bytes >= (path.endsWith('.html') ? PAGE_COMPRESS_MIN_BYTES : COMPRESS_MIN_BYTES);
}

/** The folders of the site whose pages are split between the renderers' shares (src/page-model/page-data.ts rendersOwner). */
const SHARE_FOLDERS = ['listings/', 'owners/'];

/** Whether a page of this path is in one renderer's share only; every other page is rendered by every share. */
export const isSharePage = (path: string): boolean => SHARE_FOLDERS.some((folder) => path.startsWith(folder));
