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
