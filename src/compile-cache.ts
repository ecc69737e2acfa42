// Node's on-disk compile cache (node:module), for the processes the product starts: the shim, the `catalog`
// command and the site stage's renderers. Compiling their module graphs is a large part of a start
// (bench/records/2026-11-24-start-time.md). The cache is keyed by each file's content, so a changed checkout never runs
// stale code; it lives in the OS temp directory unless NODE_COMPILE_CACHE names another, and
// NODE_DISABLE_COMPILE_CACHE=1 turns it off.
import { enableCompileCache as enable } from 'node:module';

/** Call first in an entry point, then import the rest dynamically: static imports are compiled before any code runs. */
export function enableCompileCache(): void {
  enable();
}
