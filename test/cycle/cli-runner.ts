// Runs the real command-line tool in a child process, the way cron, systemd or an operator does.
import { spawn } from 'node:child_process';
import { TEST_BASE_URL } from '../support/server.ts';

export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export function runCli(args: string[], env: Record<string, string | undefined> = {}, timeoutMs = 90_000): Promise<CliResult> {
  // Only what the tool needs from this environment: no REDIS_URL or data directory of the test run leaks in.
  const base: Record<string, string> = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', PUBLIC_BASE_URL: TEST_BASE_URL, LOG_LEVEL: 'warn' };
  const merged = Object.fromEntries(Object.entries({ ...base, ...env }).filter(([, v]) => v !== undefined)) as Record<string, string>;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['build/cli.ts', ...args], { env: merged, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** The last JSON document a --json command printed (the whole of stdout). */
export function jsonOf<T>(result: CliResult): T {
  try {
    return JSON.parse(result.stdout) as T;
  } catch {
    throw new Error(`expected JSON on stdout (exit ${result.code}): ${result.stdout.slice(0, 500)}\n${result.stderr.slice(0, 2000)}`);
  }
}
