// Where a build keeps its embeddings, shared by the stage that writes them and the shim that loads them.
// Kept apart from the stage so the shim can import it without pulling in transformers.js or the trainer.

/** <build>/runtime/<EMBEDDINGS_DIR>/ holds vectors.i8 + vectors.json (row i = document i) and the model. */
export const EMBEDDINGS_DIR = 'embeddings';
/** <build>/runtime/embeddings/<MODEL_SUBDIR>/: the model (Transformers.js layout) that embedded the rows. */
export const MODEL_SUBDIR = 'model';
