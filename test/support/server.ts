// Starts the real shim on an ephemeral port over a finished build, for tests that speak HTTP.
import { pino } from 'pino';
import { createApp, type App, type AppOptions } from '../../server/app.ts';
import { loadConfig, type Config } from '../../src/config.ts';
import { sharedBuildDir, sharedDataDir } from './shared-build.ts';
import { TEST_BASE_URL } from './test-base-url.ts';

export { TEST_BASE_URL } from './test-base-url.ts';

export interface TestServer {
  app: App;
  /** Where the server really listens (http://127.0.0.1:port); in-process, a placeholder no socket answers. */
  origin: string;
  config: Config;
  fetch(path: string, init?: RequestInit): Promise<Response>;
  close(): Promise<void>;
}

/** The shim over the embedded snapshot's build (or options.buildDir), configured as every test needs it. */
async function testApp(overrides: Partial<Config>, options: Partial<AppOptions>, env: NodeJS.ProcessEnv): Promise<{ app: App; config: Config }> {
  const buildDir = options.buildDir ?? (await sharedBuildDir());
  const config = loadConfig(
    { CATALOG_DATA_DIR: sharedDataDir(), PUBLIC_BASE_URL: TEST_BASE_URL, RATE_LIMIT_MAX: '1000000', ...env },
    { port: 0, host: '127.0.0.1', ...overrides },
  );
  return { app: createApp(config, { logger: pino({ level: 'silent' }), ...options, buildDir }), config };
}

export async function startServer(overrides: Partial<Config> = {}, options: Partial<AppOptions> = {}, env: NodeJS.ProcessEnv = {}): Promise<TestServer> {
  const { app, config } = await testApp(overrides, options, env);
  const address = await app.listen();
  const origin = `http://127.0.0.1:${address.port}`;
  return {
    app,
    origin,
    config,
    fetch: (path, init) => fetch(origin + path, init),
    close: () => app.close(),
  };
}

/**
 * The same shim without a socket: requests go through the pipeline in-process (app.fetch). For every test that is
 * not about the wire; /browse (rendered by Astro's node middleware) and streaming over a socket need startServer.
 */
export async function startInProcess(overrides: Partial<Config> = {}, options: Partial<AppOptions> = {}, env: NodeJS.ProcessEnv = {}): Promise<TestServer> {
  const { app, config } = await testApp(overrides, options, env);
  // What listen() starts once the socket is open: the embeddings load in the background.
  void app.semantic.load(app.services.catalog.current);
  return { app, origin: 'http://in-process.invalid', config, fetch: app.fetch, close: () => app.close() };
}

/** Reads a JSON body and fails with the status and body text if it is not JSON. */
export async function json<T = unknown>(response: Response): Promise<T> {
  const text = await response.text();
  try {
    return JSON.parse(text) as T;
  } catch {
    throw new Error(`expected JSON, got ${response.status}: ${text.slice(0, 200)}`);
  }
}
