// What the site's top lists, comparisons, llms.txt and the feed show of a ranked list: each repository's first
// PER_REPO_IN_TOP_LISTS listings only (src/catalog-view/catalog-view.ts), written here from the rule itself.
import { PER_REPO_IN_TOP_LISTS } from '../../src/catalog-view/catalog-view.ts';

export function twoPerRepository<T extends { repo: string }>(items: readonly T[]): T[] {
  const seen = new Map<string, number>();
  return items.filter((item) => {
    const n = seen.get(item.repo.toLowerCase()) ?? 0;
    seen.set(item.repo.toLowerCase(), n + 1);
    return n < PER_REPO_IN_TOP_LISTS;
  });
}
