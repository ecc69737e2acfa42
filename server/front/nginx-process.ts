// Runs Debian's nginx as the catalog front under a private prefix (pid file, logs, temp directories), never the
// system service: renders the configuration, checks it with `nginx -t`, starts the master and stops it by pid.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DEBIAN_BROTLI_STATIC_MODULE, renderNginxConf, type FrontDeployment } from '../../src/nginx-front/nginx-front.ts';

export interface NginxFront {
  /** The master process's pid. */
  pid: number;
  confPath: string;
  /** Re-reads the configuration (and through it the current build's http.conf and server.conf). */
  reload(): void;
  stop(): Promise<void>;
  /** The master, when started in the foreground under this process. */
  child?: ChildProcess;
}

export function nginxAvailable(): boolean {
  return spawnSync('nginx', ['-v'], { stdio: 'ignore' }).status === 0;
}

export type FrontOptions = Omit<FrontDeployment, 'brotliModule' | 'user'> & {
  /** Run the master in the foreground as a child of this process (a supervisor), instead of as a daemon. */
  foreground?: boolean;
};

/** Writes <prefix>/nginx.conf for the deployment, with the brotli module when Debian's package is installed. */
export function writeNginxConf(options: FrontOptions): string {
  for (const dir of ['logs', 'tmp']) mkdirSync(join(options.prefix, dir), { recursive: true });
  const confPath = join(options.prefix, 'nginx.conf');
  writeFileSync(
    confPath,
    renderNginxConf({
      ...options,
      brotliModule: existsSync(DEBIAN_BROTLI_STATIC_MODULE) ? DEBIAN_BROTLI_STATIC_MODULE : undefined,
      // Started as root, nginx would run its workers as nobody, who cannot read a private data directory.
      user: process.getuid?.() === 0 ? 'root' : undefined,
    }),
  );
  const check = spawnSync('nginx', ['-p', options.prefix, '-c', confPath, '-t', '-q'], { encoding: 'utf8' });
  if (check.status !== 0) throw new Error(`nginx refused ${confPath}: ${check.stderr.trim()}`);
  return confPath;
}

function readPid(prefix: string): number | undefined {
  try {
    const pid = Number(readFileSync(join(prefix, 'nginx.pid'), 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Starts nginx with the deployment's configuration; resolves once its pid file names a live master. */
export async function startNginxFront(options: FrontOptions): Promise<NginxFront> {
  const confPath = writeNginxConf(options);
  const args = ['-p', options.prefix, '-c', confPath];
  let child: ChildProcess | undefined;
  if (options.foreground) {
    child = spawn('nginx', ['-g', 'daemon off;', ...args], { stdio: 'inherit' });
  } else {
    const started = spawnSync('nginx', args, { encoding: 'utf8' });
    if (started.status !== 0) throw new Error(`nginx did not start: ${started.stderr.trim()}`);
  }
  let pid: number | undefined;
  for (let i = 0; i < 100 && pid === undefined; i++) {
    pid = readPid(options.prefix);
    if (pid === undefined || !alive(pid)) {
      pid = undefined;
      if (child?.exitCode != null) break;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  }
  if (pid === undefined) throw new Error(`nginx did not start (see ${join(options.prefix, 'logs', 'error.log')})`);
  const master = pid;
  return {
    pid: master,
    confPath,
    child,
    reload: () => process.kill(master, 'SIGHUP'),
    async stop() {
      // SIGQUIT: finish the requests in flight, then exit.
      try {
        process.kill(master, 'SIGQUIT');
      } catch {
        return;
      }
      for (let i = 0; i < 100 && alive(master); i++) await new Promise((resolve) => setTimeout(resolve, 50));
      if (alive(master)) process.kill(master, 'SIGKILL');
    },
  };
}
