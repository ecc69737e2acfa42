// The catalog the shim answers from right now. A rebuild loads the next build completely, then swaps it in
// with one assignment, so every request sees one whole snapshot, never a mix.
import { join } from 'node:path';
import { CatalogStore } from './catalog-store.ts';
import { QueryEngine } from './query-engine.ts';

export interface Snapshot {
  readonly buildDir: string;
  readonly store: CatalogStore;
  readonly engine: QueryEngine;
}

export function loadSnapshot(buildDir: string): Snapshot {
  const store = new CatalogStore(join(buildDir, 'runtime'));
  return { buildDir, store, engine: new QueryEngine(store) };
}

export class LiveCatalog {
  private snapshot: Snapshot;
  private readonly listeners: Array<(next: Snapshot) => void> = [];

  constructor(initial: Snapshot) {
    this.snapshot = initial;
  }

  get current(): Snapshot {
    return this.snapshot;
  }

  onSwap(listener: (next: Snapshot) => void): void {
    this.listeners.push(listener);
  }

  /** Loads a build and switches to it; the previous snapshot stays serving if loading fails. */
  swap(buildDir: string): Snapshot {
    const next = loadSnapshot(buildDir);
    const previous = this.snapshot;
    this.snapshot = next;
    for (const listener of this.listeners) listener(next);
    // In-flight requests hold their own reference; give them time before closing the old file handle.
    setTimeout(() => previous.store.close(), 30_000).unref();
    return next;
  }
}
