// Where a build writer may write: a path inside its root, never outside it. Shared by the site and runtime writers
// (a module of its own: the runtime writer is part of the stage contract the site writer reads).
import { normalize, sep } from 'node:path';

/** `path` as a path relative to a writer's root; refuses one that is empty or leaves the root (`..`). */
export function pathInside(path: string, rootName: string): string {
  const relative = normalize(path).replace(/^([/\\])+/, '');
  if (relative === '' || relative === '.' || relative.split(sep).includes('..')) throw new Error(`refusing to write outside the ${rootName}: ${path}`);
  return relative;
}
