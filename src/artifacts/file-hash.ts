// The sha256 of a file, read as a stream: checking a large artifact (an encoder table, a vector graph) never
// holds the whole file in memory, where a worker thread that allocates little might keep it until its next GC.
import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { pipeline } from 'node:stream/promises';

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  await pipeline(createReadStream(path), hash);
  return hash.digest('hex');
}
