// The one binary search of the search engine (and of the tools that share its sorted arrays): the first position
// whose value is not below a given one. Posting lists, block term ranges and name keys all ask it.

/** The first position in values[from..to) (ascending) holding `value` or more; `to` when there is none. */
export function lowerBound(values: ArrayLike<number>, from: number, to: number, value: number): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (values[mid]! < value) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/**
 * The same search over positions [from, to) whose order only `isBelow` knows (sorted strings, values reached
 * through an index): the first position for which isBelow is false. For searches off the per-posting paths,
 * where the call through isBelow does not count.
 */
export function partitionPoint(from: number, to: number, isBelow: (position: number) => boolean): number {
  let lo = from;
  let hi = to;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (isBelow(mid)) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}
