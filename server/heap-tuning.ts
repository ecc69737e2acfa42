// The shim's live heap is mostly the search index, which is fixed for a snapshot; under load V8 would let the
// old space grow to several times that before collecting. Growing the heap by at most half the live size keeps
// that growth small at full throughput (a tighter bound cost requests/s and p99), and still scales with the catalog
// (a fixed --max-old-space-size would not serve 1M listings). Imported first by server/main.ts.
// The young generation is capped where the process starts (`npm start`: --max-semi-space-size=8), since V8 sizes
// it before any code runs: larger semi-spaces held more RSS for the same requests/s
// (bench/records/2026-11-23-heap-tuning.md).
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--heap-growing-percent=50');
