// Browse: no query words, only filters and a sort (installs by default). Without a filter the page is a slice of
// the sort order; with one, its members are found by walking the order or by sorting the smallest filter list.
import { isUnfiltered, type Filter } from '../filter.ts';
import { page, pageOfSort, wanted, type EngineParts, type SearchRequest, type SearchResult } from './parts.ts';

export function browse(parts: EngineParts, request: SearchRequest, filter: Filter): SearchResult {
  const sort = request.sort ?? 'installs';
  const n = parts.store.count;
  const want = wanted(request);
  if (isUnfiltered(filter)) {
    const { perm } = parts.store.order(sort);
    return page(Array.from(perm.subarray(Math.min(request.offset, n), Math.min(want, n))), request, sort, n);
  }
  const driver = filter.lists[0];
  // With a posting list, either sort its members (cost ~ m log m) or walk the sort order until enough
  // members turn up (cost ~ want * n / m); pick the cheaper.
  if (driver && driver.length * Math.log2(driver.length + 2) < (want * n) / driver.length) {
    const test = parts.filters.predicate(filter, true);
    let m = 0;
    const docs = pageOfSort(parts, request, sort, false, test, (keys, rank) => {
      for (let i = 0; i < driver.length; i++) {
        const doc = driver[i]!;
        if (test(doc)) keys[m++] = rank ? rank[doc]! : doc;
      }
      return m;
    });
    return page(docs, request, sort, m);
  }
  const docs = pageOfSort(parts, request, sort, true, parts.filters.predicate(filter, false), () => 0);
  return page(docs, request, sort, parts.filters.countAdmitted(filter));
}
