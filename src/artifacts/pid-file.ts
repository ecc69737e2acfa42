// <data>/shim.pid: written by the shim (server/start.ts) when it listens and removed when it exits, so the
// daily rebuild (catalog rebuild) can find the shim to signal (SIGHUP) without being told its pid.
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export const SHIM_PID_FILE = 'shim.pid';

export function pidFilePath(dataDir: string): string {
  return join(dataDir, SHIM_PID_FILE);
}

/** The pid in a pid file, or undefined when there is none (or it holds no pid). */
export function readPidFile(path: string): number | undefined {
  try {
    const pid = Number(readFileSync(path, 'utf8').trim());
    return Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** Writes this process's pid; the returned function removes the file if it still names this process. */
export function writePidFile(path: string): () => void {
  writeFileSync(path, `${process.pid}\n`);
  return () => {
    if (readPidFile(path) === process.pid) rmSync(path, { force: true });
  };
}
