// Starts a real, throwaway redis-server on a free port (no persistence) for tests of the Redis-backed stores.
import { spawn, type ChildProcess } from 'node:child_process';
import { Redis } from 'ioredis';
import { freePort } from '../../src/net/free-port.ts';

export interface TestRedis {
  url: string;
  port: number;
  stop(): Promise<void>;
}

/** A new redis-server; `port` restarts one where a stopped one listened (the shims reconnect to it). */
export async function startRedis(port?: number): Promise<TestRedis> {
  port ??= await freePort();
  const child: ChildProcess = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no'], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<never>((_, reject) => child.once('exit', (code) => reject(new Error(`redis-server exited (${code}): ${output}`))));
  const url = `redis://127.0.0.1:${port}`;
  const ready = (async () => {
    for (let attempt = 0; attempt < 100; attempt++) {
      const probe = new Redis(url, { lazyConnect: true, maxRetriesPerRequest: 0, retryStrategy: () => null });
      probe.on('error', () => undefined);
      try {
        await probe.connect();
        if ((await probe.ping()) === 'PONG') return;
      } catch {
        await new Promise((resolve) => setTimeout(resolve, 50));
      } finally {
        probe.disconnect();
      }
    }
    throw new Error(`redis-server did not answer on ${url}: ${output}`);
  })();
  await Promise.race([ready, exited]);
  return {
    url,
    port,
    async stop() {
      if (child.exitCode !== null) return;
      const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
      child.kill('SIGTERM');
      await gone;
    },
  };
}
