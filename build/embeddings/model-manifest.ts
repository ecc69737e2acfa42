// The catalog-model.json manifest written next to a trained static model, read by the loader.

export const MANIFEST_FILE = 'catalog-model.json';
export const MODEL_FORMAT = 'catalog-static-embedding';
export const MODEL_FORMAT_VERSION = 1;

export interface ModelManifest {
  format: typeof MODEL_FORMAT;
  formatVersion: number;
  modelId: string;
  dims: number;
  vocabSize: number;
  maxLength: number;
  pooling: 'mean';
  normalize: true;
  corpus: { documents: number; tokens: number; distinctWords: number; sha256: string };
  /** Resolved training options (dims, window, vocabulary caps, SVD settings, seed). */
  training: Record<string, number | string>;
  /** sha256 over the model files below (name and hash of each, in listed order). */
  contentHash: string;
  files: Record<string, { bytes: number; sha256: string }>;
}
