// Guarantees what a person sees in a real browser (Debian's Chromium driven by playwright-core): the home page,
// search results on /browse with and without JavaScript and as they type, a listing page with its labelled
// figures, third-party install line and SKILL.md first, the MCP hub as HTML; and that every page checked has one
// h1, a language, labelled form controls, images with alt text, the main landmarks and the disclaimer.
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DISCLAIMER } from '../../src/domain/brand.ts';
import { SITE_PATHS } from '../../src/domain/site-paths.ts';
import type { Listing } from '../../src/domain/schemas.ts';
import { json, startServer, type TestServer } from '../support/server.ts';

const CHROMIUM = '/usr/bin/chromium';
const SKILL_WITH_FILES = 'vercel-react-best-practices';

let server: TestServer;
let browser: Browser;
let withJs: BrowserContext;
let withoutJs: BrowserContext;

beforeAll(async () => {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: apt-get install -y chromium (.ci/run does)`);
  server = await startServer();
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'],
  });
  withJs = await browser.newContext({ baseURL: server.origin, viewport: { width: 1280, height: 900 } });
  withoutJs = await browser.newContext({ baseURL: server.origin, javaScriptEnabled: false });
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

async function open(context: BrowserContext, path: string): Promise<Page> {
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (error) => errors.push(error.message));
  page.on('console', (message) => {
    if (message.type() === 'error') errors.push(message.text());
  });
  const response = await page.goto(path);
  expect(response?.status(), path).toBe(200);
  expect(response?.headers()['content-type'], path).toMatch(/^text\/html/);
  (page as Page & { errors: string[] }).errors = errors;
  return page;
}

/** The basic accessibility facts of a page, read from the live DOM. */
async function accessibilityFacts(page: Page) {
  return page.evaluate(() => {
    const labelled = (el: Element) => ((el as HTMLInputElement).labels?.length ?? 0) > 0 || el.hasAttribute('aria-label') || el.hasAttribute('aria-labelledby');
    const ids = Array.from(document.querySelectorAll('[id]')).map((el) => el.id);
    return {
      lang: document.documentElement.lang,
      title: document.title,
      h1: Array.from(document.querySelectorAll('h1')).map((h) => h.textContent?.trim()),
      unlabelled: Array.from(document.querySelectorAll('input:not([type=hidden]), select, textarea'))
        .filter((el) => !labelled(el))
        .map((el) => el.outerHTML),
      imagesWithoutAlt: Array.from(document.querySelectorAll('img'))
        .filter((img) => !img.hasAttribute('alt'))
        .map((img) => img.outerHTML),
      landmarks: {
        banner: document.querySelectorAll('header').length,
        nav: document.querySelectorAll('nav').length,
        main: document.querySelectorAll('main').length,
        contentinfo: document.querySelectorAll('footer').length,
      },
      duplicateIds: ids.filter((id, i) => ids.indexOf(id) !== i),
      emptyLinks: Array.from(document.querySelectorAll('a'))
        .filter((a) => !a.textContent?.trim() && !a.getAttribute('aria-label'))
        .map((a) => a.outerHTML),
    };
  });
}

describe('what a person sees', () => {
  it('the home page: what the catalog is, a search box, counts per type and the disclaimer', async () => {
    const page = await open(withJs, SITE_PATHS.home);
    await expect(page.getByRole('heading', { level: 1 }).innerText()).resolves.toBe('Find agent skills, MCP servers and plugins');
    expect(await page.getByRole('searchbox', { name: 'Search the catalog' }).first().isVisible()).toBe(true);
    for (const name of ['Top skills', 'Top MCP servers']) expect(await page.getByRole('heading', { name, level: 2 }).isVisible()).toBe(true);
    const stats = await json<{ byType: Record<string, number> }>(await server.fetch('/api/v1/catalog/stats'));
    expect(await page.locator('.cards').innerText()).toContain(stats.byType.skill!.toLocaleString('en-US'));
    expect(await page.getByText(DISCLAIMER).isVisible()).toBe(true);
  });

  it('/browse?q=postgres shows server-rendered results without JavaScript', async () => {
    const page = await open(withoutJs, '/browse?q=postgres');
    const results = page.locator('#browse-results > li');
    expect(await results.count()).toBe(20);
    expect((await results.first().innerText()).toLowerCase()).toContain('postgres');
    expect(await page.getByRole('heading', { name: 'Results for “postgres”' }).isVisible()).toBe(true);
    expect(await page.locator('#browse-q').inputValue()).toBe('postgres');
    await page.getByRole('link', { name: 'Next 20' }).click();
    await page.waitForURL(/cursor=/);
    expect(await page.locator('#browse-status').innerText()).toMatch(/^Showing 21–/);
  });

  it('/browse searches through the API as a person types, and keeps the address in step', async () => {
    const page = await open(withJs, '/browse?q=postgres');
    expect(await page.locator('#browse-results > li').count()).toBe(20);
    const api = page.waitForResponse((response) => response.url().includes('/api/v1/listings?') && response.url().includes('q=pdf'));
    await page.locator('#browse-q').fill('pdf');
    await api;
    await expect(page.getByRole('heading', { name: 'Results for “pdf”' }).waitFor()).resolves.toBeUndefined();
    expect(page.url()).toMatch(/\/browse\?q=pdf$/);
    const first = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?q=pdf&limit=20'));
    await expect(page.locator('#browse-results > li').first().locator('a.title').innerText()).resolves.toBe(first.items[0]!.name);
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
  });

  it('/browse says, as a person types, when it shows matches for a corrected word', async () => {
    const page = await open(withJs, '/browse?q=postgres');
    const api = page.waitForResponse((response) => response.url().includes('/api/v1/listings?') && response.url().includes('q=telegarm'));
    await page.locator('#browse-q').fill('telegarm');
    await api;
    await expect(page.getByRole('heading', { name: 'Results for “telegram”' }).waitFor()).resolves.toBeUndefined();
    expect(await page.locator('#browse-status').innerText()).toMatch(/^Showing matches for “telegram”: no listing holds every word of “telegarm”\. Showing 1–/);
    const first = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?q=telegram&limit=20'));
    await expect(page.locator('#browse-results > li').first().locator('a.title').innerText()).resolves.toBe(first.items[0]!.name);
    expect((page as Page & { errors: string[] }).errors).toEqual([]);
  });

  it('a skill page: name, labelled figures, the third-party install line and SKILL.md before the bundled files', async () => {
    const listing = await json<Listing>(await server.fetch(`/api/v1/listings/${SKILL_WITH_FILES}`));
    const page = await open(withJs, SITE_PATHS.listing(SKILL_WITH_FILES));
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toContain(listing.name);
    const facts = await page.locator('dl.facts').innerText();
    expect(facts).toMatch(new RegExp(`Installs\\s+${listing.installs.toLocaleString('en-US')} installs \\(real, as of \\d{4}-\\d{2}-\\d{2}\\)`));
    expect(facts).toMatch(/Stars\s+[\d,]+ stars \(real/);
    const install = page.getByRole('region', { name: 'Install', exact: true });
    expect(await install.locator('pre').innerText()).toBe(listing.installCommand);
    expect(await install.innerText()).toContain('Third-party installer: this command runs the third-party skills CLI');
    const sections = await page.locator('main h2').allInnerTexts();
    expect(sections.indexOf('SKILL.md')).toBeGreaterThan(-1);
    expect(sections.indexOf('SKILL.md')).toBeLessThan(sections.findIndex((text) => text.startsWith('Bundled files')));
    const files = await json<Array<{ path: string; content: string }>>(await server.fetch(`/api/v1/listings/${SKILL_WITH_FILES}/files`));
    expect(files[0]!.path).toBe('SKILL.md');
    // Rendered (headings, code highlighted at build time), with the raw text one click away.
    const rendered = page.locator('.skill-md .markdown');
    expect(await rendered.isVisible()).toBe(true);
    expect(await rendered.locator('h3, h4').count()).toBeGreaterThan(0);
    expect(await rendered.locator('script, iframe').count()).toBe(0);
    const raw = page.locator('.skill-md details.raw');
    expect(await raw.locator('pre').isVisible()).toBe(false);
    await raw.locator('summary').click();
    expect((await raw.locator('pre').innerText()).trim()).toBe(files[0]!.content.trim());
    // Headings of the rendered file are drawn bold and larger than its body text.
    const sizes = await rendered.evaluate((root) => ({
      heading: parseFloat(getComputedStyle(root.querySelector('h3, h4')!).fontSize),
      body: parseFloat(getComputedStyle(root.querySelector('p, li')!).fontSize),
    }));
    expect(sizes.heading).toBeGreaterThan(sizes.body);
    // And it is drawn: the screenshot of the rendered file holds a good deal of dark (text) pixels.
    const { data, info } = await sharp(await rendered.screenshot())
      .raw()
      .toBuffer({ resolveWithObject: true });
    let dark = 0;
    for (let i = 0; i < data.length; i += info.channels) if (data[i]! + data[i + 1]! + data[i + 2]! < 200) dark++;
    expect(dark).toBeGreaterThan(1000);
    // Bundled files are collapsed until opened.
    const file = page.locator('.file-list details').first();
    expect(await file.locator('pre').isVisible()).toBe(false);
    await file.locator('summary').click();
    expect(await file.locator('pre').isVisible()).toBe(true);
  });

  it('a listing page draws its measured install history (dots on a dashed line), never a modelled one, and its ranks', async () => {
    /** Pixels of a screenshot near an RGB colour (the chart's accent or muted grey), read back with sharp. */
    const pixelsNear = async (png: Buffer, [r, g, b]: [number, number, number]) => {
      const { data, info } = await sharp(png).raw().toBuffer({ resolveWithObject: true });
      let count = 0;
      for (let i = 0; i < data.length; i += info.channels) if (Math.abs(data[i]! - r) + Math.abs(data[i + 1]! - g) + Math.abs(data[i + 2]! - b) < 60) count++;
      return count;
    };
    const accent: [number, number, number] = [0x0a, 0x58, 0xca];
    // find-skills: the most installed skill, with a history interpolated between real snapshots.
    const real = await json<Listing>(await server.fetch('/api/v1/listings/find-skills'));
    expect(real.metrics.history).toBe('interpolated');
    const page = await open(withJs, SITE_PATHS.listing('find-skills'));
    const chart = page.getByRole('img', { name: /^Cumulative installs of find-skills, last 30 days$/ });
    expect(await chart.isVisible()).toBe(true);
    expect((await chart.boundingBox())!.width).toBeGreaterThan(300);
    expect(await chart.locator('circle.day-measured').count()).toBeGreaterThanOrEqual(2);
    expect(await chart.locator('polyline').evaluate((line) => getComputedStyle(line).strokeDasharray)).not.toBe('none');
    const drawn = await chart.screenshot();
    expect(await pixelsNear(drawn, accent)).toBeGreaterThan(200);
    // Ranks agree with the API's sorts within the type (the page's script reads them from their shared part).
    await expect.poll(() => page.locator('dl.facts').innerText()).toMatch(/Rank\s+#1 by installs and #[\d,]+ by stars of [\d,]+ skills/);
    const { items: byStars } = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?type=mcp&sort=stars&limit=2'));
    const second = await open(withJs, SITE_PATHS.listing(byStars[1]!.slug));
    await expect.poll(() => second.locator('dl.facts').innerText()).toMatch(/Rank\s+#[\d,]+ by installs and #2 by stars of [\d,]+ MCP servers/i);
    // An owner page's ranks among owners come from the same parts, and agree with the owner's stats.
    const owner = await json<{ byType: { skill: { rank: number; owners: number } } }>(await server.fetch('/api/v1/owners/vercel-labs/stats'));
    const ownerPage = await open(withJs, SITE_PATHS.owner('vercel-labs'));
    const n = (x: number) => x.toLocaleString('en-US');
    await expect
      .poll(() => ownerPage.locator('table.owner-figures').innerText())
      .toContain(`#${n(owner.byType.skill.rank)} of ${n(owner.byType.skill.owners)} by installs`);

    // A modelled history is not drawn and gives no trending figure: the page says none was measured.
    const { items } = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?type=mcp&limit=20'));
    const synthetic = items.find((listing) => listing.metrics.history === 'synthetic')!;
    const modelledPage = await open(withJs, SITE_PATHS.listing(synthetic.slug));
    expect(await modelledPage.locator('svg.install-chart').count()).toBe(0);
    expect(await modelledPage.locator('section.install-history').innerText()).toContain('No install history');
    expect(await modelledPage.locator('dl.facts').innerText()).toMatch(/Trending\s+not computed/);
  });

  it('a listing with synthetic figures shows them as estimates, never as counts', async () => {
    const { items } = await json<{ items: Listing[] }>(await server.fetch('/api/v1/listings?type=mcp&limit=50&sort=trending'));
    const synthetic = items.find((listing) => listing.metrics.installs === 'synthetic' && listing.metrics.stars === 'synthetic')!;
    const page = await open(withJs, SITE_PATHS.listing(synthetic.slug));
    const facts = await page.locator('dl.facts').innerText();
    expect(facts).toMatch(/Installs\s+≈ [\d,]+ installs? \(estimated — synthetic\)/);
    expect(facts).toMatch(/Stars\s+≈ [\d,]+ stars? \(estimated — synthetic\)/);
    expect(facts).not.toContain(`${synthetic.installs.toLocaleString('en-US')} installs (real`);
  });

  it('a comparison table on a 390 px phone scrolls sideways and breaks no word (a break after - or / is a line break)', async () => {
    const phone = await browser.newContext({ baseURL: server.origin, viewport: { width: 390, height: 844 } });
    try {
      for (const path of [SITE_PATHS.compare('skill', 'databases'), SITE_PATHS.compare('mcp', 'databases')]) {
        const page = await open(phone, path);
        const { broken, scrolls } = await page.evaluate(() => {
          const table = document.querySelector('table.compare')!;
          const found: string[] = [];
          const walker = document.createTreeWalker(table, NodeFilter.SHOW_TEXT);
          for (let node = walker.nextNode(); node; node = walker.nextNode()) {
            const text = node.textContent ?? '';
            for (const word of text.matchAll(/\S{2,}/g)) {
              // The line each character is drawn on; a word whose line changes other than after - or / is broken.
              let top: number | undefined;
              for (let i = word.index; i < word.index + word[0].length; i++) {
                const range = document.createRange();
                range.setStart(node, i);
                range.setEnd(node, i + 1);
                const rect = range.getClientRects()[0];
                if (!rect) continue;
                if (top !== undefined && Math.abs(rect.top - top) > 2 && !'-/'.includes(text[i - 1]!)) found.push(word[0]);
                top = rect.top;
              }
            }
          }
          const scroller = table.closest('.table-scroll')!;
          return { broken: found, scrolls: scroller.scrollWidth > scroller.clientWidth };
        });
        expect(broken, path).toEqual([]);
        // The table is wider than the phone: its wrapper scrolls, the page does not.
        expect(scrolls, path).toBe(true);
        expect(await page.evaluate(() => document.documentElement.scrollWidth), path).toBeLessThanOrEqual(390);
      }
    } finally {
      await phone.close();
    }
  });

  it('GET /mcp in a browser is the HTML MCP hub, not JSON', async () => {
    const page = await open(withJs, SITE_PATHS.mcpHub);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('MCP servers');
    expect(await page.getByRole('heading', { name: "Connect to catalog's own MCP server" }).isVisible()).toBe(true);
    expect(await page.locator('main').innerText()).toContain('npx -y catalog-mcp');
    expect(await page.locator('main').innerText()).toContain(`${server.config.baseUrl}/.well-known/mcp`);
    expect(await page.locator('#top-mcp ~ ol > li').count()).toBeGreaterThan(0);
  });
});

describe('accessibility basics', () => {
  it.each([
    SITE_PATHS.home,
    '/browse?q=postgres',
    SITE_PATHS.listing(SKILL_WITH_FILES),
    SITE_PATHS.type('mcp'),
    SITE_PATHS.category('skill', 'databases'),
    SITE_PATHS.compare('skill', 'databases'),
    SITE_PATHS.mcpHub,
    SITE_PATHS.docsIndex,
    SITE_PATHS.doc('ranking'),
    SITE_PATHS.login,
  ])('%s has one h1, a language, labelled controls, alt texts, landmarks and the disclaimer', async (path) => {
    const page = await open(withJs, path);
    const facts = await accessibilityFacts(page);
    expect(facts.lang).toBe('en');
    expect(facts.title.length).toBeGreaterThan(3);
    expect(facts.h1).toHaveLength(1);
    expect(facts.unlabelled).toEqual([]);
    expect(facts.imagesWithoutAlt).toEqual([]);
    expect(facts.duplicateIds).toEqual([]);
    expect(facts.emptyLinks).toEqual([]);
    expect(facts.landmarks).toMatchObject({ banner: 1, main: 1, contentinfo: 1 });
    expect(facts.landmarks.nav).toBeGreaterThanOrEqual(1);
    expect(await page.locator('footer').getByText(DISCLAIMER).isVisible()).toBe(true);
    // Keyboard users land on the skip link first, and it leads to the main content.
    await page.keyboard.press('Tab');
    expect(await page.evaluate(() => document.activeElement?.textContent)).toBe('Skip to content');
    await page.close();
  });

  it('the 404 page reaches a browser with status 404 and is a page of the site', async () => {
    const page = await withJs.newPage();
    const response = await page.goto('/listings/not-a-real-listing/');
    expect(response?.status()).toBe(404);
    expect(await page.getByRole('heading', { level: 1 }).innerText()).toBe('Page not found');
    expect(await page.getByText(DISCLAIMER).isVisible()).toBe(true);
  });
});

describe('content security policy', () => {
  let csp: BrowserContext;
  beforeAll(async () => {
    csp = await browser.newContext({ baseURL: server.origin });
    // Every violation of the served policy, as the page itself sees it (report-only is not needed: it is enforced).
    await csp.addInitScript(() => {
      const seen: string[] = [];
      (window as unknown as { cspViolations: string[] }).cspViolations = seen;
      document.addEventListener('securitypolicyviolation', (event) =>
        seen.push(`${event.violatedDirective} ${event.blockedURI} ${event.sourceFile}:${event.lineNumber}`),
      );
    });
  });
  afterAll(() => csp?.close());

  it.each([
    [SITE_PATHS.home, 200],
    [SITE_PATHS.listing(SKILL_WITH_FILES), 200],
    [SITE_PATHS.type('mcp'), 200],
    [SITE_PATHS.category('skill', 'databases'), 200],
    [SITE_PATHS.compare('skill', 'databases'), 200],
    ['/browse?q=postgres', 200],
    [SITE_PATHS.mcpHub, 200],
    [SITE_PATHS.docsIndex, 200],
    [SITE_PATHS.doc('ranking'), 200],
    [SITE_PATHS.login, 200],
    ['/listings/not-a-real-listing/', 404],
  ] as const)('%s is served with the policy and breaks none of it', async (path, status) => {
    const page = await csp.newPage();
    const refused: string[] = [];
    page.on('console', (message) => {
      if (/Content Security Policy|Refused to/i.test(message.text())) refused.push(message.text());
    });
    const response = await page.goto(path, { waitUntil: 'load' });
    expect(response?.status()).toBe(status);
    expect(response?.headers()['content-security-policy']).toContain("script-src 'self'");
    expect(response?.headers()['x-frame-options']).toBe('DENY');
    if (path.startsWith('/browse')) {
      // The page's own script runs and fetches from the API as a person types.
      await page.getByRole('searchbox').first().fill('postgres database');
      await page.waitForTimeout(600);
    }
    const violations = await page.evaluate(() => (window as unknown as { cspViolations: string[] }).cspViolations);
    expect(violations).toEqual([]);
    expect(refused).toEqual([]);
    await page.close();
  });

  it('a page cannot be framed by another origin', async () => {
    const page = await csp.newPage();
    await page.goto('/');
    // A frame of the home page from an opaque origin: frame-ancestors 'none' refuses it.
    const refused: string[] = [];
    page.on('console', (message) => refused.push(message.text()));
    await page.setContent(`<iframe src="${server.origin}/"></iframe>`);
    await page.waitForTimeout(500);
    const framed = page.frames().find((frame) => frame !== page.mainFrame());
    const text = framed ? await framed.evaluate(() => document.body?.innerText ?? '').catch(() => '') : '';
    expect(text).not.toContain('Find agent skills');
    await page.close();
  });
});
