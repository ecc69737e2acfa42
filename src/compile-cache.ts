// Node's on-disk compile cache (node:module), for the processes the product starts: the shim, the `catalog`
// command and the site stage's renderers. Compiling their module graphs is most of a start (the shim over the
// embedded snapshot: ~750 → ~550 ms to its first answer; `catalog --help`: 0.36 → 0.20 s; an Astro renderer
// ~1 s of its CPU). The cache is keyed by each file's content, so a changed checkout never runs stale code; it
// lives in the OS temp directory unless NODE_COMPILE_CACHE names another, and NODE_DISABLE_COMPILE_CACHE=1
// turns it off.
import { enableCompileCache as enable } from 'node:module';

/** Call first in an entry point, then import the rest dynamically: static imports are compiled before any code runs. */
export function enableCompileCache(): void {
  enable();
}
