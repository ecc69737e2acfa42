// `npm run start:front`: the deployment of docs/operations.md in one command, for one machine. nginx listens on
// HOST:PORT and serves the current build's site/ itself; FRONT_SHIMS shims (default 1) on free loopback ports
// answer the dynamic paths, with TRUST_PROXY=1 so each request counts against the client nginx saw.
// SIGHUP (what `catalog rebuild` sends through <data>/shim.pid) switches the shims and reloads nginx onto the
// new build; SIGINT/SIGTERM stop everything.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { connect } from 'node:net';
import { join, resolve } from 'node:path';
import { z } from 'zod';
import { loadConfig, ConfigError } from '../../src/config.ts';
import { buildDirs } from '../../src/artifacts/build-dirs.ts';
import { currentOrFirstBuild } from '../first-build.ts';
import { pidFilePath, writePidFile } from '../../src/artifacts/pid-file.ts';
import { nginxAvailable, startNginxFront, type NginxFront } from './nginx-process.ts';
import { freePort } from '../../src/net/free-port.ts';

const SHIM_ENTRY = resolve(import.meta.dirname, '..', 'start.ts');

async function waitForPort(port: number, child: ChildProcess, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`a shim exited with code ${child.exitCode} before listening`);
    const open = await new Promise<boolean>((done) => {
      const socket = connect(port, '127.0.0.1', () => {
        socket.destroy();
        done(true);
      });
      socket.once('error', () => done(false));
    });
    if (open) return;
    await new Promise((r) => setTimeout(r, 50));
  }
  throw new Error(`no shim listening on 127.0.0.1:${port} after ${timeoutMs} ms`);
}

async function main(): Promise<void> {
  const config = loadConfig();
  const shimCount = z.coerce
    .number()
    .int()
    .min(1)
    .max(64)
    .default(1)
    .parse(process.env.FRONT_SHIMS || undefined);
  if (!nginxAvailable()) throw new ConfigError('nginx is not installed: apt-get install nginx libnginx-mod-http-brotli-static');
  const dirs = buildDirs(config.dataDir);
  // The front serves the front stage's files: it waits for the whole first build, the shims start on it after.
  const start = await currentOrFirstBuild(config);
  const buildDir = start.finished ? await start.finished : start.buildDir;
  if (!existsSync(join(buildDir, 'front', 'server.conf'))) {
    throw new ConfigError(`${buildDir} has no front configuration (made before the front stage existed); rebuild it: npm run build -- --force`);
  }

  const shims: ChildProcess[] = [];
  const ports: number[] = [];
  let nginx: NginxFront | undefined;
  let stopping = false;
  const stop = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const shim of shims) if (shim.exitCode === null) shim.kill('SIGTERM');
    await nginx?.stop();
    await Promise.all(shims.map((shim) => (shim.exitCode === null ? new Promise((r) => shim.once('exit', r)) : undefined)));
    process.exit(code);
  };
  process.on('SIGINT', () => void stop(0));
  process.on('SIGTERM', () => void stop(0));
  // Registered before the pid file names this process: SIGHUP's default action would end it.
  process.on('SIGHUP', () => {
    for (const shim of shims) shim.kill('SIGHUP');
    nginx?.reload();
  });

  for (let i = 0; i < shimCount; i++) {
    const port = await freePort();
    const shim = spawn(process.execPath, [SHIM_ENTRY], {
      stdio: 'inherit',
      env: {
        ...process.env,
        PORT: String(port),
        HOST: '127.0.0.1',
        PUBLIC_BASE_URL: config.baseUrl,
        TRUST_PROXY: process.env.TRUST_PROXY || '1',
        CATALOG_BUILD_ON_START: 'false',
      },
    });
    shim.once('exit', (code) => {
      if (!stopping) {
        console.error(`a shim exited (code ${code}); stopping the front`);
        void stop(1);
      }
    });
    shims.push(shim);
    ports.push(port);
  }
  await Promise.all(shims.map((shim, i) => waitForPort(ports[i]!, shim, 120_000)));

  const current = dirs.currentLink;
  nginx = await startNginxFront({
    prefix: join(config.dataDir, 'front'),
    listen: `${config.host.includes(':') ? `[${config.host}]` : config.host}:${config.port}`,
    upstreams: ports.map((port) => `127.0.0.1:${port}`),
    // Through <data>/current: a reload picks up the build the rebuild switched to.
    httpConf: join(current, 'front', 'http.conf'),
    serverConf: join(current, 'front', 'server.conf'),
    foreground: true,
  });
  nginx.child?.once('exit', (code) => {
    if (!stopping) {
      console.error(`nginx exited (code ${code}); stopping the shims`);
      void stop(1);
    }
  });
  // The shims wrote their own pids; the rebuild signals this process, which tells them and nginx.
  const removePidFile = writePidFile(pidFilePath(config.dataDir));
  process.on('exit', removePidFile);
  console.log(
    JSON.stringify({
      msg: 'catalog front is serving',
      url: `http://${config.host}:${config.port}`,
      baseUrl: config.baseUrl,
      shims: ports.map((p) => `127.0.0.1:${p}`),
      nginxPid: nginx.pid,
    }),
  );
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(error instanceof ConfigError ? 78 : 1);
});
