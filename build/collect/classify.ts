// The category of a listing no source categorised: the nearest labelled listings in the product's own embedding
// space (the distilled encoder every build uses, src/embeddings) vote, weighted by similarity. The labelled set is
// the catalog itself (every listing a source or an earlier collection categorised), so the classifier follows the
// data rather than a keyword list. Deterministic: the same catalog and text give the same category.
import { DEFAULT_ENCODER_DIR, loadStaticEncoder, type StaticEncoder } from '../../src/embeddings/static-encoder.ts';
import { listingText } from '../../src/embeddings/embedder.ts';

export interface Labelled {
  type: string;
  name: string;
  description: string;
  category: string;
}

export interface Classifier {
  classify(listing: { type: string; name: string; description: string; tags: string[] }): string;
  /** Labelled examples kept (at most `perCategory` a category). */
  readonly examples: number;
}

export interface ClassifierOptions {
  /** Neighbours that vote. */
  k?: number;
  /** Examples kept per category, so a large category cannot outvote the rest by number alone. */
  perCategory?: number;
  /** The category when there is nothing to compare with (no labelled listing, a text with no known word). */
  fallback?: string;
  encoderDir?: string;
}

/**
 * A classifier over `labelled`: loads the encoder and embeds the examples kept. Call it only when some listing
 * needs a category (a collection where every listing has one never loads the encoder).
 */
export async function nearestNeighbourClassifier(labelled: Iterable<Labelled>, options: ClassifierOptions = {}): Promise<Classifier> {
  const k = options.k ?? 9;
  const perCategory = options.perCategory ?? 400;
  const fallback = options.fallback ?? 'developer-tools';
  const kept: Labelled[] = [];
  const perCount = new Map<string, number>();
  for (const example of labelled) {
    if (!example.category || example.category === 'other' || !example.description) continue;
    const count = perCount.get(example.category) ?? 0;
    if (count >= perCategory) continue;
    perCount.set(example.category, count + 1);
    kept.push(example);
  }
  const encoder: StaticEncoder | undefined = kept.length ? await loadStaticEncoder(options.encoderDir ?? DEFAULT_ENCODER_DIR) : undefined;
  const vectors = kept.map((example) => encoder!.embed(listingText(example)));
  return {
    examples: kept.length,
    classify(listing) {
      if (!encoder) return fallback;
      const query = encoder.embed(listingText(listing));
      const best: Array<{ score: number; category: string }> = [];
      for (let i = 0; i < kept.length; i++) {
        const vector = vectors[i]!;
        let score = 0;
        for (let d = 0; d < vector.length; d++) score += vector[d]! * query[d]!;
        // A listing's own type is the better neighbour (a skill among skills) when the texts are as close.
        if (kept[i]!.type === listing.type) score += 0.05;
        if (best.length < k || score > best[best.length - 1]!.score) {
          best.push({ score, category: kept[i]!.category });
          best.sort((a, b) => b.score - a.score);
          if (best.length > k) best.pop();
        }
      }
      if (best.length === 0 || best[0]!.score <= 0.05) return fallback;
      const votes = new Map<string, number>();
      for (const { score, category } of best) votes.set(category, (votes.get(category) ?? 0) + Math.max(score, 0));
      return [...votes.entries()].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))[0]![0];
    },
  };
}
