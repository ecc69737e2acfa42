// Browser side of the rank parts (src/page-model/rank-parts.ts): the ranks move daily for nearly every listing and
// owner, so the pages do not hold them; each element naming a part in `data-ranks` gets its text from that part. A
// part is fetched once per page, however many elements name it. Without JavaScript, or when the part cannot be read,
// the element keeps what the page rendered (a link to where the ranks are).
import type { RankPart } from '../../src/page-model/rank-parts.ts';

const parts = new Map<string, Promise<RankPart | undefined>>();

function part(url: string): Promise<RankPart | undefined> {
  let found = parts.get(url);
  if (!found) {
    found = fetch(url)
      .then((response) => (response.ok ? (response.json() as Promise<RankPart>) : undefined))
      .catch(() => undefined);
    parts.set(url, found);
  }
  return found;
}

/** The figures as the pages write them. */
export const count = (x: number) => x.toLocaleString('en-US');

/** Sets the text of every element matching `selector` to what `text` makes of its part, when it makes one. */
export function fillRanks(selector: string, text: (part: RankPart, element: HTMLElement) => string | undefined): void {
  document.querySelectorAll<HTMLElement>(selector).forEach((element) => {
    void part(element.dataset.ranks!).then((found) => {
      const value = found && text(found, element);
      if (value) element.textContent = value;
    });
  });
}
