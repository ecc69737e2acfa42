// How `catalog rebuild` tells a running shim to switch to the new build: SIGHUP to a pid (given, or from the
// pid file the shim writes at <data>/shim.pid), or the staff route POST /api/v1/staff/reload.
import { StaffBuildStatusSchema, type StaffBuildStatus } from '../../src/domain/schemas.ts';
import { readPidFile } from '../../src/artifacts/pid-file.ts';

export class NotifyError extends Error {}

export type NotifyResult = { via: 'signal'; pid: number } | { via: 'http'; status: StaffBuildStatus } | { via: 'none'; reason: string };

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    // EPERM: the process exists but belongs to someone else; signalling it will say so.
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

export function signalShim(pid: number): NotifyResult {
  try {
    process.kill(pid, 'SIGHUP');
  } catch (error) {
    throw new NotifyError(`could not send SIGHUP to pid ${pid}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
  return { via: 'signal', pid };
}

/** SIGHUP to the shim named by a pid file; 'none' when there is no file or its process is gone. */
export function signalFromPidFile(path: string): NotifyResult {
  const pid = readPidFile(path);
  if (pid === undefined) return { via: 'none', reason: `no pid file at ${path}` };
  if (!alive(pid)) return { via: 'none', reason: `pid ${pid} from ${path} is not running` };
  return signalShim(pid);
}

export async function reloadOverHttp(baseUrl: string, token: string): Promise<NotifyResult> {
  const url = `${baseUrl.replace(/\/+$/, '')}/api/v1/staff/reload`;
  let response: Response;
  try {
    response = await fetch(url, { method: 'POST', headers: { Authorization: `Bearer ${token}`, Accept: 'application/json' } });
  } catch (error) {
    throw new NotifyError(`POST ${url} failed: ${(error as Error).message}`);
  }
  const text = await response.text();
  if (!response.ok) {
    let detail = text.slice(0, 300);
    try {
      const body = JSON.parse(text) as { code?: string; message?: string };
      if (body.code) detail = `${body.code}: ${body.message ?? ''}`;
    } catch {
      // not JSON: the raw text says more than nothing
    }
    throw new NotifyError(`POST ${url} answered ${response.status} (${detail})`);
  }
  const parsed = StaffBuildStatusSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new NotifyError(`POST ${url} answered 200 with an unexpected body`);
  return { via: 'http', status: parsed.data };
}
