// What a person starting the shim reads when it cannot start: the cause in one line and what to do about it,
// instead of a stack or a bare system error code.
import type { Config } from '../src/config.ts';

interface SystemError {
  code?: string;
  message?: string;
}

/** One line saying why the shim did not start and what to do. */
export function startErrorMessage(error: unknown, config: Pick<Config, 'host' | 'port'>): string {
  const code = (error as SystemError | undefined)?.code;
  if (code === 'EADDRINUSE')
    return `Port ${config.port} on ${config.host} is already in use (another catalog or another program). Stop it, or start on a free port: PORT=${config.port === 8080 ? 8081 : config.port + 1} npm start`;
  if (code === 'EACCES')
    return `Not allowed to listen on port ${config.port} on ${config.host} (ports below 1024 need privileges). Start on a higher port: PORT=8080 npm start`;
  if (code === 'EADDRNOTAVAIL')
    return `No interface of this machine has the address ${config.host}. Set HOST to one it has, e.g. HOST=127.0.0.1 (or HOST=0.0.0.0 for all).`;
  return error instanceof Error ? error.message : String(error);
}

/** The plain line that says the shim is ready and where to open it. */
export function servingLine(config: Pick<Config, 'baseUrl'>, address: { address: string; port: number }): string {
  const bound = `http://${address.address.includes(':') ? `[${address.address}]` : address.address}:${address.port}`;
  return bound === config.baseUrl ? `Serving on ${config.baseUrl}` : `Serving on ${config.baseUrl} (listening on ${bound})`;
}
