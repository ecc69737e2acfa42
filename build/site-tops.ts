// The names at the top of a build's site/ and which side writes under each: the site stage's pages (the renderers'
// output and the pages linked from the previous build), or the files of the stages that write through a SiteWriter
// (shards, discovery). The two sides may run side by side, so each name belongs to one of them: the site stage
// compresses and hands to a first start only its own names, and a writer never puts a file among the pages.

export type SiteSide = 'pages' | 'files';

export class SiteTops {
  private readonly owner = new Map<string, SiteSide>();

  /** Records that `side` writes under `top` (for `path`, named in the error); throws when the other side does. */
  claim(top: string, side: SiteSide, path: string = `/${top}`): void {
    const held = this.owner.get(top);
    if (held === undefined) this.owner.set(top, side);
    else if (held !== side)
      throw new Error(
        side === 'files'
          ? `refusing to write ${path}: /${top} holds the site's pages, which a first start serves while this is written; write it under another name`
          : `the site's pages include /${top}, where a later stage writes its files (${path}); give the one or the other another name`,
      );
  }

  /** Whether `top` is one the writers' side has claimed. */
  isFiles(top: string): boolean {
    return this.owner.get(top) === 'files';
  }

  /** The names claimed by the pages' side. */
  pages(): string[] {
    return [...this.owner].filter(([, side]) => side === 'pages').map(([top]) => top);
  }
}
