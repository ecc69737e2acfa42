// The catalog the shim answers from right now. A snapshot owns everything made from one build: the store, the
// query engine, the static files, and every table or cache derived from them (made on first use, see
// SnapshotResource). A rebuild loads the next snapshot completely, then swaps it in with one assignment, so
// every request sees one whole build, never a mix, and nothing of the old build outlives it. The next build's runtime
// (most of a load) is read while that build is still being made, once its runtime is complete (LiveCatalog.prepare):
// the switch then adds only its site.
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

/** What a snapshot answers the API from: the build's runtime/ read into memory, and the query engine over it. */
export interface LoadedRuntime {
  buildDir: string;
  store: CatalogStore;
  engine: QueryEngine;
  sharedFiles: ReadonlyMap<string, Buffer>;
}

/** Reads a build's runtime/: the longest part of a switch to the build, and all of it that needs no site/. */
export function loadRuntime(buildDir: string): LoadedRuntime {
  const sharing = sharingReader();
  const store = new CatalogStore(join(buildDir, 'runtime'), { readFile: sharing.read });
  return { buildDir, store, engine: new QueryEngine(store), sharedFiles: sharing.files };
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

  /**
   * `siteInProgress`: a first start's build, served while its site is still being made (GrowingStaticFiles).
   * `runtime`: the build's runtime loaded ahead (LiveCatalog.prepare); else it is loaded here.
   */
  constructor(buildDir: string, options: { siteInProgress?: boolean; runtime?: LoadedRuntime } = {}) {
    this.buildDir = buildDir;
    this.buildId = basename(buildDir);
    const runtime = options.runtime ?? loadRuntime(buildDir);
    this.store = runtime.store;
    this.sharedFiles = runtime.sharedFiles;
    this.engine = runtime.engine;
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

export function loadSnapshot(buildDir: string, options: { siteInProgress?: boolean; runtime?: LoadedRuntime } = {}): Snapshot {
  return new Snapshot(buildDir, options);
}

export class LiveCatalog {
  private snapshot: Snapshot;
  private readonly listeners: Array<(next: Snapshot) => void> = [];
  /** The runtime of the build a rebuild is making, loaded before `current` moves to it (prepare); taken by swap. */
  private ahead: LoadedRuntime | undefined;

  constructor(initial: Snapshot) {
    this.snapshot = initial;
  }

  get current(): Snapshot {
    return this.snapshot;
  }

  /** The build whose runtime is loaded ahead of its switch, if any. */
  get prepared(): string | undefined {
    return this.ahead?.buildDir;
  }

  /** For the composition root (the semantic index follows the build); derived state belongs to the snapshot. */
  onSwap(listener: (next: Snapshot) => void): void {
    this.listeners.push(listener);
  }

  /**
   * Loads the runtime of a build that is still being made, once it is complete (its RUNTIME_READY_FILE), so that the
   * switch to it only adds its site: the answers come from the new build as soon as it is switched to. Holds one such
   * build at most; the one held before is dropped. Returns whether it loaded anything.
   */
  prepare(buildDir: string): boolean {
    if (buildDir === this.snapshot.buildDir || buildDir === this.ahead?.buildDir) return false;
    const runtime = loadRuntime(buildDir);
    this.drop();
    this.ahead = runtime;
    return true;
  }

  /** Forgets the build loaded ahead (it failed and was removed, or another is made). */
  drop(): void {
    this.ahead?.store.close();
    this.ahead = undefined;
  }

  /** Loads a build (its runtime from prepare when that loaded it) and switches to it; the previous snapshot stays serving if loading fails. */
  swap(buildDir: string): Snapshot {
    const ahead = this.ahead?.buildDir === buildDir ? this.ahead : undefined;
    const next = loadSnapshot(buildDir, ahead ? { runtime: ahead } : {});
    if (ahead) this.ahead = undefined;
    else this.drop();
    const previous = this.snapshot;
    this.snapshot = next;
    for (const listener of this.listeners) listener(next);
    // In-flight requests hold their own reference; give them time before closing the old file handle.
    setTimeout(() => previous.close(), 30_000).unref();
    return next;
  }
}
