// Guarantees the order the suite runs in (test/support/sequencer.ts): files that start a server over the shared
// build, or ask for it, wait for it and run last; files that build their own catalogs run first, beside it.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { waitsForSharedBuild } from '../support/sequencer.ts';

const source = (path: string) => readFileSync(new URL(`../${path}`, import.meta.url), 'utf8');

describe('the suite order', () => {
  it('sees a file that waits for the shared build', () => {
    expect(waitsForSharedBuild('const dir = await sharedBuildDir();')).toBe(true);
    expect(waitsForSharedBuild('server = await startServer();')).toBe(true);
    expect(waitsForSharedBuild('server = await startInProcess({ rateLimitMax: 3 });')).toBe(true);
    expect(waitsForSharedBuild('server = await startInProcess({}, { buildDir });\nother = await startServer();')).toBe(true);
  });

  it('runs first a file that only serves builds of its own', () => {
    expect(waitsForSharedBuild('server = await startInProcess({}, { buildDir: firstBuild }, { SEARCH_SIGNALS: "on" });')).toBe(false);
    expect(waitsForSharedBuild('expect(tokenize("a-b")).toEqual(["a", "b"]);')).toBe(false);
  });

  it('classifies the long cycle tests as independent and the API tests as waiting', () => {
    for (const file of ['cycle/mirror.test.ts', 'cycle/cli.test.ts', 'cycle/daily-cycle.test.ts', 'cycle/search-trend.test.ts']) {
      expect(waitsForSharedBuild(source(file)), file).toBe(false);
    }
    for (const file of ['api/catalog-api.test.ts', 'site/pages.test.ts', 'front/front.test.ts']) expect(waitsForSharedBuild(source(file)), file).toBe(true);
  });
});
