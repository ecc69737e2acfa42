// Guarantees the audit as the API and the pages show it on the embedded snapshot's build: every listing with stored
// files carries an `audit` in the documented shape and no other listing does; risk= keeps the audited listings of
// one level (a bad level is a 400); the stats count levels and findings per rule; a listing page lists its
// findings with the excerpt escaped and says what was and was not checked.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AUDIT_RULES } from '../../build/skill-audit.ts';
import { AUDIT_LEVELS, CatalogStatsSchema, ListingPageSchema, ListingSchema, SkillAuditSchema, type Listing } from '../../src/domain/schemas.ts';
import { json, startServer, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

const get = async <T>(path: string): Promise<T> => {
  const res = await server.fetch(path);
  expect(res.status, await res.clone().text()).toBe(200);
  return json<T>(res);
};

describe('audit in the listing JSON', () => {
  it('is on every listing with stored files, and on no other', async () => {
    const body = ListingPageSchema.parse(await get('/api/v1/listings?type=skill&limit=2000'));
    for (const item of body.items) {
      if (item.files.length > 0) expect(SkillAuditSchema.parse(item.audit).files).toBe(item.files.length);
      else expect(item.audit).toBeUndefined();
    }
  });

  it('names rule, severity, file, line and excerpt of a finding', async () => {
    const listing = ListingSchema.parse(await get('/api/v1/listings/skill%3Asupercent-io%2Fskills-template%23genkit'));
    expect(listing.audit).toMatchObject({
      level: 'info',
      findings: [{ rule: 'remote-code-exec', severity: 'info', file: 'SKILL.md', line: 35, excerpt: 'curl -sL cli.genkit.dev | bash' }],
    });
  });
});

describe('risk= on the listing search', () => {
  it.each(AUDIT_LEVELS)('risk=%s keeps the audited listings of that level, as many as the stats count', async (level) => {
    const stats = CatalogStatsSchema.parse(await get('/api/v1/catalog/stats'));
    const body = ListingPageSchema.parse(await get(`/api/v1/listings?risk=${level}&limit=2000`));
    expect(body.total).toBe(stats.audit!.byLevel[level]);
    for (const item of body.items as Listing[]) expect(item.audit?.level).toBe(level);
  });

  it('combines with q and the other filters', async () => {
    const body = ListingPageSchema.parse(await get('/api/v1/listings?risk=info&q=azure&type=skill'));
    expect(body.items.length).toBeGreaterThan(0);
    for (const item of body.items) expect(item.audit?.level).toBe('info');
  });

  it.each(['severe', 'HIGH', 'none,high'])('refuses risk=%s with a 400 in the documented shape', async (value) => {
    const res = await server.fetch(`/api/v1/listings?risk=${encodeURIComponent(value)}`);
    expect(res.status).toBe(400);
    expect(await json(res)).toMatchObject({ code: 'invalid_parameter', message: expect.stringContaining('risk'), resolution: expect.any(String) });
  });
});

describe('stats', () => {
  it('count audited listings by level and findings by rule, every rule listed', async () => {
    const stats = CatalogStatsSchema.parse(await get('/api/v1/catalog/stats'));
    const audit = stats.audit!;
    expect(Object.values(audit.byLevel).reduce((a, b) => a + b, 0)).toBe(audit.audited);
    expect(audit.audited).toBe(451);
    expect(Object.keys(audit.findingsByRule).sort()).toEqual(AUDIT_RULES.map((rule) => rule.id).sort());
    expect(stats.copies!.groups).toBeGreaterThan(1500);
  });
});

describe('the listing page', () => {
  it('lists the findings, escaped, and says what was and was not checked', async () => {
    const res = await server.fetch('/listings/genkit/', { headers: { Accept: 'text/html' } });
    const html = await res.text();
    expect(html).toContain('Audit of the stored files');
    expect(html).toContain('<code>remote-code-exec</code>');
    expect(html).toContain('<code>SKILL.md:35</code>');
    expect(html).toContain('<code>curl -sL cli.genkit.dev | bash</code>');
    expect(html).toContain('What was checked, and what was not');
    expect(html).toContain('A finding is a signal, not a verdict');
  });

  it('says a skill without stored files was not audited', async () => {
    const html = await (await server.fetch('/listings/composiohq-pdf/', { headers: { Accept: 'text/html' } })).text();
    expect(html).toContain('not audited');
  });
});
