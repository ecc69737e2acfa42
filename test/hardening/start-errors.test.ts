// Guarantees a person starting the shim reads what to do: a port already taken or a PORT that is no port each
// answer one line naming the fix, and a started shim prints one plain "Serving on <url>" line.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pino } from 'pino';
import { createApp } from '../../server/app.ts';
import { servingLine, startErrorMessage } from '../../server/start-errors.ts';
import { ConfigError, loadConfig } from '../../src/config.ts';
import { sharedBuildDir, sharedDataDir } from '../support/shared-build.ts';
import { startServer, type TestServer } from '../support/server.ts';

describe('PORT that is no port', () => {
  it.each(['abc', '99999', '80.5', '-1'])('PORT=%s stops with the fix, not a parser message', (value) => {
    expect(() => loadConfig({ PORT: value })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: value })).toThrow('PORT: must be a port number from 0 to 65535 (0 picks a free one), e.g. PORT=8080');
  });
});

describe('a port already in use', () => {
  let first: TestServer;
  beforeAll(async () => {
    first = await startServer();
  });
  afterAll(() => first.close());

  it('says the port is taken and how to start on another', async () => {
    const port = Number(new URL(first.origin).port);
    const config = loadConfig({ CATALOG_DATA_DIR: sharedDataDir() }, { port, host: '127.0.0.1' });
    const second = createApp(config, { buildDir: await sharedBuildDir(), logger: pino({ level: 'silent' }) });
    const error = await second.listen().then(
      () => undefined,
      (caught: unknown) => caught,
    );
    await second.close();
    expect((error as { code?: string }).code).toBe('EADDRINUSE');
    expect(startErrorMessage(error, config)).toBe(
      `Port ${port} on 127.0.0.1 is already in use (another catalog or another program). Stop it, or start on a free port: PORT=${port + 1} npm start`,
    );
  });
});

describe('the ready line', () => {
  it.each([
    ['http://localhost:8080', { address: '127.0.0.1', port: 8080 }, 'Serving on http://localhost:8080 (listening on http://127.0.0.1:8080)'],
    ['http://127.0.0.1:8080', { address: '127.0.0.1', port: 8080 }, 'Serving on http://127.0.0.1:8080'],
    ['https://catalog.example', { address: '::', port: 8080 }, 'Serving on https://catalog.example (listening on http://[::]:8080)'],
  ])('%s bound to %j', (baseUrl, address, line) => {
    expect(servingLine({ baseUrl }, address)).toBe(line);
  });
});
