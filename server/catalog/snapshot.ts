// The catalog the shim answers from right now. A snapshot owns everything made from one build: the store, the
// query engine, the static files, and every table or cache derived from them (made on first use, see
// SnapshotResource). A rebuild loads the next snapshot completely, then swaps it in with one assignment, so
// every request sees one whole build, never a mix, and nothing of the old build outlives it.
import { basename, join } from 'node:path';
import { createStaticFiles, GrowingStaticFiles, type StaticFiles } from '../http/static-files.ts';
import { CatalogStore } from '../../src/artifacts/runtime-store.ts';
import { QueryEngine } from '../../src/search/query-engine.ts';
import { sharingReader } from '../../src/artifacts/shared-file.ts';

/** Something derived from one build (a lookup table, an answer cache): made once per snapshot, on first use. */
export interface SnapshotResource<T> {
  readonly name: string;
  create(snapshot: Snapshot): T;
}

export function snapshotResource<T>(name: string, create: (snapshot: Snapshot) => T): SnapshotResource<T> {
  return { name, create };
}

export class Snapshot {
  /** The build's directory name: every answer names it (Catalog-Build). */
  readonly buildId: string;
  readonly store: CatalogStore;
  readonly engine: QueryEngine;
  /** The build's site/ directory, served as files. */
  readonly files: StaticFiles;
  private readonly resources = new Map<SnapshotResource<unknown>, unknown>();

  readonly buildDir: string;
  /** The store's whole-file reads by path, in shared memory: the keyword worker searches them without a copy. */
  readonly sharedFiles: ReadonlyMap<string, Buffer>;

  /** `siteInProgress`: a first start's build, served while its site is still being made (GrowingStaticFiles). */
  constructor(buildDir: string, options: { siteInProgress?: boolean } = {}) {
    this.buildDir = buildDir;
    this.buildId = basename(buildDir);
    const sharing = sharingReader();
    this.store = new CatalogStore(join(buildDir, 'runtime'), { readFile: sharing.read });
    this.sharedFiles = sharing.files;
    this.engine = new QueryEngine(this.store);
    this.files = options.siteInProgress ? new GrowingStaticFiles(join(buildDir, 'site')) : createStaticFiles(join(buildDir, 'site'));
  }

  /** The resource of this snapshot, made on first use. */
  get<T>(resource: SnapshotResource<T>): T {
    if (this.resources.has(resource)) return this.resources.get(resource) as T;
    const made = resource.create(this);
    this.resources.set(resource, made);
    return made;
  }

  close(): void {
    this.resources.clear();
    this.store.close();
  }
}

export function loadSnapshot(buildDir: string, options: { siteInProgress?: boolean } = {}): Snapshot {
  return new Snapshot(buildDir, options);
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

  /** For the composition root (the semantic index follows the build); derived state belongs to the snapshot. */
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
    setTimeout(() => previous.close(), 30_000).unref();
    return next;
  }
}
