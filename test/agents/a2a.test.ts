// Guarantees the A2A agent: the official A2A JS client (1.0 through the agent card, 0.3 through its compat
// transport) gets matching listings in a data part; raw 0.3 and 1.0 calls are answered in their own shapes; no
// streaming, no tasks, and the JSON-RPC errors use their named codes.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Role } from '@a2a-js/sdk';
import { ClientFactory, DefaultAgentCardResolver, JsonRpcTransportFactory } from '@a2a-js/sdk/client';
import { LegacyJsonRpcTransport } from '@a2a-js/sdk/compat/v0_3/client';
import { JSON_RPC_CODES } from '../../server/json-rpc/json-rpc.ts';
import { ListingSchema } from '../../src/domain/schemas.ts';
import { json, startServer, TEST_BASE_URL, type TestServer } from '../support/server.ts';

let server: TestServer;
beforeAll(async () => {
  server = await startServer();
});
afterAll(() => server.close());

/** The card's URLs carry the public base URL; send them to the test server instead. */
const rewritingFetch: typeof fetch = (input, init) => {
  const url = input instanceof Request ? input.url : String(input);
  return fetch(url.replace(TEST_BASE_URL, server.origin), init);
};

const userMessage = (text: string) => ({
  messageId: crypto.randomUUID(),
  contextId: '',
  taskId: '',
  role: Role.ROLE_USER,
  parts: [{ content: { $case: 'text' as const, value: text }, metadata: undefined, filename: '', mediaType: '' }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

type CoreMessage = { role: Role; parts: Array<{ content?: { $case: string; value: unknown } }> };

function partsOf(result: unknown): { text: string; data: { query: string; count: number; listings: unknown[] } } {
  const message = result as CoreMessage;
  expect(message.role).toBe(Role.ROLE_AGENT);
  const text = message.parts.find((part) => part.content?.$case === 'text')?.content?.value as string;
  const data = message.parts.find((part) => part.content?.$case === 'data')?.content?.value as { query: string; count: number; listings: unknown[] };
  return { text, data };
}

async function post(body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return server.fetch('/a2a/v1', { method: 'POST', headers: { 'Content-Type': 'application/json', ...headers }, body: JSON.stringify(body) });
}

describe('the agent card', () => {
  it('carries the 1.0 interfaces, the 0.3 fields, skills and no streaming', async () => {
    const res = await server.fetch('/.well-known/agent-card.json');
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    const card = await json<Record<string, unknown>>(res);
    expect(card).toMatchObject({
      name: 'catalog',
      url: `${TEST_BASE_URL}/a2a/v1`,
      protocolVersion: '0.3.0',
      preferredTransport: 'JSONRPC',
      capabilities: { streaming: false },
      supportedInterfaces: [
        { url: `${TEST_BASE_URL}/a2a/v1`, protocolBinding: 'JSONRPC', protocolVersion: '1.0' },
        { url: `${TEST_BASE_URL}/a2a/v1`, protocolBinding: 'JSONRPC', protocolVersion: '0.3.0' },
      ],
    });
    expect((card.skills as Array<{ id: string }>).map((skill) => skill.id)).toEqual(['search-catalog']);
  });
});

describe('the official A2A client', () => {
  it('A2A 1.0: resolves the card, sends SendMessage and reads the listings from the data part', async () => {
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: rewritingFetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: rewritingFetch }),
    });
    const client = await factory.createFromUrl(server.origin);
    const result = await client.sendMessage({ message: userMessage('something to let my agent query Postgres') } as never);
    const { text, data } = partsOf(result);
    expect(data.query).toBe('something to let my agent query Postgres');
    expect(data.count).toBe(data.listings.length);
    expect(data.listings.length).toBeGreaterThan(0);
    const listings = data.listings.map((listing) => ListingSchema.parse(listing));
    expect(listings.some((listing) => /postgres/i.test(`${listing.name} ${listing.description}`))).toBe(true);
    expect(text).toContain(listings[0]!.name);
  });

  it('A2A 0.3: message/send through the compat transport at the card url', async () => {
    const card = await json<{ url: string }>(await server.fetch('/.well-known/agent-card.json'));
    const transport = new LegacyJsonRpcTransport({ endpoint: card.url, fetchImpl: rewritingFetch });
    const result = await transport.sendMessage({ message: userMessage('github issues mcp server') } as never);
    const { data } = partsOf(result);
    expect(data.listings.length).toBeGreaterThan(0);
  });

  it('A2A 1.0 streaming: the client reads streaming false from the card and sends SendMessage instead', async () => {
    const factory = new ClientFactory({
      transports: [new JsonRpcTransportFactory({ fetchImpl: rewritingFetch })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl: rewritingFetch }),
    });
    const client = await factory.createFromUrl(server.origin);
    const events: Array<{ payload?: { $case: string; value: unknown } }> = [];
    for await (const event of client.sendMessageStream({ message: userMessage('postgres') } as never)) events.push(event);
    expect(events).toHaveLength(1);
    expect(events[0]!.payload?.$case).toBe('message');
    expect(partsOf(events[0]!.payload!.value).data.listings.length).toBeGreaterThan(0);
  });

  it('A2A 1.0 streaming forced through the transport is refused as unsupported', async () => {
    const card = await new DefaultAgentCardResolver({ fetchImpl: rewritingFetch }).resolve(server.origin);
    const transport = await new JsonRpcTransportFactory({ fetchImpl: rewritingFetch }).create(card.supportedInterfaces[0]!.url, card);
    await expect(transport.sendMessageStream({ message: userMessage('postgres') } as never).next()).rejects.toThrow(/[Ss]treaming is not supported/);
  });
});

describe('raw JSON-RPC', () => {
  it('message/send (0.3) answers a kind:"message" with text and data parts', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 'a',
      method: 'message/send',
      params: { message: { kind: 'message', messageId: 'm1', contextId: 'ctx-1', role: 'user', parts: [{ kind: 'text', text: 'pdf' }] } },
    });
    const body = await json<{
      id: string;
      result: { kind: string; role: string; contextId: string; parts: Array<{ kind: string; data?: { listings: unknown[] } }> };
    }>(res);
    expect(body.id).toBe('a');
    expect(body.result).toMatchObject({ kind: 'message', role: 'agent', contextId: 'ctx-1' });
    expect(body.result.parts.map((part) => part.kind)).toEqual(['text', 'data']);
    expect(body.result.parts[1]!.data!.listings).toHaveLength(10);
  });

  it('SendMessage (1.0) answers {message} with ROLE_AGENT and parts without kind', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 2,
      method: 'SendMessage',
      params: { message: { messageId: 'm2', role: 'ROLE_USER', parts: [{ text: 'pdf' }] } },
    });
    const body = await json<{ result: { message: { role: string; parts: Array<Record<string, unknown>> } } }>(res);
    expect(body.result.message.role).toBe('ROLE_AGENT');
    expect(body.result.message.parts.every((part) => !('kind' in part))).toBe(true);
    expect(body.result.message.parts[1]).toMatchObject({ mediaType: 'application/json', data: { query: 'pdf' } });
  });

  it('message/send with a 1.0-shaped message (ROLE_USER, parts without kind) is answered in the 1.0 shape', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 4,
      method: 'message/send',
      params: { message: { messageId: 'm4', role: 'ROLE_USER', parts: [{ text: 'pdf' }] } },
    });
    const body = await json<{ result: { message: { role: string; parts: Array<Record<string, unknown>> } } }>(res);
    expect(body.result.message.role).toBe('ROLE_AGENT');
    expect(body.result.message.parts[0]).toMatchObject({ text: expect.stringContaining('pdf') });
  });

  it('a data part refines the search', async () => {
    const res = await post({
      jsonrpc: '2.0',
      id: 3,
      method: 'message/send',
      params: {
        message: {
          kind: 'message',
          messageId: 'm3',
          role: 'user',
          parts: [
            { kind: 'text', text: 'github' },
            { kind: 'data', data: { type: 'mcp', limit: 3 } },
          ],
        },
      },
    });
    const body = await json<{ result: { parts: Array<{ data?: { listings: Array<{ type: string }> } }> } }>(res);
    const listings = body.result.parts[1]!.data!.listings;
    expect(listings).toHaveLength(3);
    expect(listings.every((listing) => listing.type === 'mcp')).toBe(true);
  });

  it.each([
    ['message/stream', JSON_RPC_CODES.unsupportedOperation],
    ['SendStreamingMessage', JSON_RPC_CODES.unsupportedOperation],
    ['tasks/get', JSON_RPC_CODES.taskNotFound],
    ['GetTask', JSON_RPC_CODES.taskNotFound],
    ['tasks/pushNotificationConfig/set', JSON_RPC_CODES.pushNotificationNotSupported],
    ['agent/doSomething', JSON_RPC_CODES.methodNotFound],
  ])('%s is error %i', async (method, code) => {
    const body = await json<{ error: { code: number; message: string } }>(
      await post({ jsonrpc: '2.0', id: 1, method, params: { message: { parts: [{ text: 'x' }] } } }),
    );
    expect(body.error.code).toBe(code);
  });

  it('message/stream says streaming is unsupported', async () => {
    const body = await json<{ error: { message: string } }>(await post({ jsonrpc: '2.0', id: 1, method: 'message/stream', params: {} }));
    expect(body.error.message).toMatch(/[Ss]treaming is not supported/);
  });

  it.each([
    ['no parts', { message: { role: 'user', parts: [] } }],
    ['no text', { message: { role: 'user', parts: [{ kind: 'data', data: { type: 'mcp' } }] } }],
    ['a question over 256 characters', { message: { role: 'user', parts: [{ kind: 'text', text: 'x'.repeat(257) }] } }],
    [
      'an unknown type in the data part',
      {
        message: {
          role: 'user',
          parts: [
            { kind: 'text', text: 'x' },
            { kind: 'data', data: { type: 'robot' } },
          ],
        },
      },
    ],
  ])('invalid params (-32602) for %s', async (_case, params) => {
    const body = await json<{ error: { code: number } }>(await post({ jsonrpc: '2.0', id: 1, method: 'message/send', params }));
    expect(body.error.code).toBe(JSON_RPC_CODES.invalidParams);
  });

  it('parse errors, invalid requests and batches', async () => {
    const parse = await server.fetch('/a2a/v1', { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '{' });
    expect((await json<{ error: { code: number } }>(parse)).error.code).toBe(JSON_RPC_CODES.parseError);
    expect((await json<{ error: { code: number } }>(await post({ id: 1, method: 'message/send' }))).error.code).toBe(JSON_RPC_CODES.invalidRequest);
    expect((await json<{ error: { code: number } }>(await post([{ jsonrpc: '2.0', id: 1, method: 'message/send' }]))).error.code).toBe(
      JSON_RPC_CODES.invalidRequest,
    );
  });
});
