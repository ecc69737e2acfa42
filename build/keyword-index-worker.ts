// The worker of keyword-index-thread.ts: one KeywordIndexBuilder, fed in the order the messages come. With a term
// cache (keyword-term-cache.ts) it takes the terms of listings whose texts a previous build saw from that build's
// file, tokenizes the others, and writes this build's file beside the index.
import { parentPort, workerData } from 'node:worker_threads';
import { fieldTexts, KeywordIndexBuilder } from '../src/search/index-builder.ts';
import { writeKeywordIndex } from '../src/search/index-file.ts';
import { readTermCache, termKey, writeTermCache } from './keyword-term-cache.ts';
import type { FromKeywordIndexWorker, KeywordIndexWorkerData, ToKeywordIndexWorker } from './keyword-index-thread.ts';

const port = parentPort!;
const { termCache } = (workerData ?? {}) as KeywordIndexWorkerData;
const builder = new KeywordIndexBuilder({ keepTerms: termCache !== undefined });
const answer = (message: FromKeywordIndexWorker) => port.postMessage(message);
let previous: ReturnType<typeof readTermCache>;
let unused = '';
if (termCache?.previous) previous = readTermCache(termCache.previous, termCache.fingerprint, (reason) => (unused = reason));
const keys: Buffer[] = [];
let reused = 0;

port.on('message', (message: ToKeywordIndexWorker) => {
  try {
    if (message.kind === 'names') {
      for (const name of message.names) builder.addName(name);
    } else if (message.kind === 'listings') {
      for (const listing of message.listings) {
        if (!termCache) {
          builder.add(listing);
          continue;
        }
        const texts = fieldTexts(listing);
        const key = termKey(texts);
        keys.push(key);
        const doc = previous?.find(key);
        if (doc === undefined) builder.addTerms(builder.listingTerms(listing, texts));
        else {
          builder.addKept(previous!.kept, doc);
          reused++;
        }
      }
      answer({ kind: 'indexed' });
    } else {
      writeKeywordIndex(message.dir, builder.finish(message.popularity));
      if (termCache) writeTermCache(termCache.out, termCache.fingerprint, Buffer.concat(keys), builder.keptTerms());
      answer({ kind: 'written', terms: termCache && { reused, tokenized: keys.length - reused, ...(previous ? {} : { unused: unused || 'none given' }) } });
    }
  } catch (error) {
    // The thread's owner ends the worker (it stays until then, so this answer is not lost to its exit).
    answer({ kind: 'failed', message: error instanceof Error ? error.message : String(error) });
  }
});
