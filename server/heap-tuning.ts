// The shim's live heap is mostly the search index, which is fixed for a snapshot; under load V8 would let the
// old space grow to several times that before collecting (RSS ~170 MB above idle at 100k listings). Growing the
// heap by at most 1.5x the live size keeps that to ~100 MB at full throughput (1.2x: ~60 MB, but 20% fewer
// requests/s and twice the p99), and still scales with the catalog (a fixed --max-old-space-size would not
// serve 1M listings). Imported first by server/main.ts.
// The young generation is capped where the process starts (`npm start`: --max-semi-space-size=8), since V8 sizes
// it before any code runs: left to grow to 64 MiB per semi-space, it held ~90 MB more RSS at 100k listings for the
// same requests/s (npm run bench); 8 MiB rather than 16 held another 20-30 MB less after a mixed run (two runs of
// each, the bench's distinct, semantic, MCP, /ask, file, by-id and batch traffic), at the same requests/s.
import { setFlagsFromString } from 'node:v8';

setFlagsFromString('--heap-growing-percent=50');
