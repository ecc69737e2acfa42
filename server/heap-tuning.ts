// The shim's live heap is mostly the search index, which is fixed for a snapshot; under load V8 would let the
// old space grow to several times that before collecting (RSS ~620 MB at 100k listings). Growing the heap by
// at most 1.5x the live size keeps RSS near 450 MB there at the same throughput, and still scales with the
// catalog (a fixed --max-old-space-size would not serve 1M listings). Imported first by server/start.ts.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--heap-growing-percent=50');
