// What a build run as a child process (the shim's first start, server/first-build.ts) tells its parent over the IPC
// channel: the one message both sides read, so the build and the shim never import each other.

/** The build's runtime/ is complete: the API and search can answer from buildDir while the site stage runs on. */
export interface RuntimeReadyMessage {
  type: 'runtime-ready';
  buildDir: string;
}

export function isRuntimeReadyMessage(message: unknown): message is RuntimeReadyMessage {
  const m = message as Partial<RuntimeReadyMessage> | null;
  return typeof m === 'object' && m !== null && m.type === 'runtime-ready' && typeof m.buildDir === 'string';
}

/**
 * Every page of the build is in buildDir/site while the build goes on (compressed copies, shards, discovery files):
 * `entries`, the names at the top of site/, are complete; any other name is still to be written.
 */
export interface PagesReadyMessage {
  type: 'pages-ready';
  buildDir: string;
  entries: string[];
}

export function isPagesReadyMessage(message: unknown): message is PagesReadyMessage {
  const m = message as Partial<PagesReadyMessage> | null;
  return (
    typeof m === 'object' &&
    m !== null &&
    m.type === 'pages-ready' &&
    typeof m.buildDir === 'string' &&
    Array.isArray(m.entries) &&
    m.entries.every((entry) => typeof entry === 'string')
  );
}
