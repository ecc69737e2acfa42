// Guarantees /pricing.md states the one free offer (price 0, USD) as a schema.org Offer in a table and as JSON-LD,
// and /auth.md is the authentication docs page as Markdown, both served as text/markdown.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadDocs } from '../../src/docs/index.ts';
import { startInProcess, TEST_BASE_URL, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startInProcess();
});
afterAll(() => server.close());

describe('/pricing.md', () => {
  let text: string;
  beforeAll(async () => {
    const res = await server.fetch('/pricing.md');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    text = await res.text();
  });

  it('says the service is free, in an Offer table with price 0 USD', () => {
    expect(text).toMatch(/^# Pricing\n/);
    expect(text).toMatch(/is free/);
    const rows = text.split('\n').filter((line) => line.startsWith('|'));
    const header = rows[0]!.split('|').map((c) => c.trim());
    const offer = rows[2]!.split('|').map((c) => c.trim());
    expect(offer[header.indexOf('@type')]).toBe('Offer');
    expect(offer[header.indexOf('price')]).toBe('0');
    expect(offer[header.indexOf('priceCurrency')]).toBe('USD');
  });

  it('carries the same offer as schema.org JSON-LD', () => {
    const block = /```json\n([\s\S]*?)\n```/.exec(text)?.[1];
    expect(JSON.parse(block!)).toMatchObject({ '@context': 'https://schema.org', '@type': 'Offer', price: 0, priceCurrency: 'USD' });
  });
});

describe('/auth.md', () => {
  it('is the body of the authentication docs page, its links made absolute', async () => {
    const res = await server.fetch('/auth.md');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const text = await res.text();
    const doc = loadDocs().find((d) => d.slug === 'auth')!;
    expect(text.replaceAll(`](${TEST_BASE_URL}/`, '](/').startsWith(doc.body)).toBe(true);
    expect(text).toContain(`${TEST_BASE_URL}/docs/auth/`);
    expect(text).not.toMatch(/\]\(\/[^/]/);
  });
});
