// The serving bench reads wrk's report (bench/harness.ts): requests a second, the median and 99th percentile in
// milliseconds whatever unit wrk printed, and every socket error and non-2xx answer counted as a failure; and the
// Lua script it gives wrk for a request's method, body and headers.
import { describe, expect, it } from 'vitest';
import { wrkFigures, wrkScript } from '../../bench/harness.ts';

const CLEAN = `Running 1s test @ http://127.0.0.1:18301/llms.txt
  1 threads and 2 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency    73.75us   58.95us   2.01ms   99.28%
    Req/Sec    24.74k     0.98k   26.94k    81.82%
  Latency Distribution
     50%   70.00us
     75%   74.00us
     90%   77.00us
     99%  115.00us
  27019 requests in 1.10s, 1.20GB read
Requests/sec:  24574.99
Transfer/sec:      1.09GB
`;

const FAILING = `Running 5s test @ http://127.0.0.1:18090/api/v1/listings/batch
  1 threads and 16 connections
  Latency Distribution
     50%    1.46ms
     75%    2.10ms
     90%    3.00ms
     99%    1.20s
  80000 requests in 5.00s, 2.40GB read
  Socket errors: connect 0, read 3, write 1, timeout 2
  Non-2xx or 3xx responses: 17
Requests/sec:  16000.40
Transfer/sec:    480.00MB
`;

describe('wrk report', () => {
  it('gives the rate and the latencies in milliseconds', () => {
    expect(wrkFigures(CLEAN)).toEqual({ requestsPerSecond: 24575, p50: 0.07, p99: 0.115, errors: 0, non2xx: 0 });
  });

  it('counts socket errors and non-2xx answers, and reads seconds', () => {
    expect(wrkFigures(FAILING)).toEqual({ requestsPerSecond: 16000, p50: 1.46, p99: 1200, errors: 6, non2xx: 17 });
  });

  it('refuses a report without the latency distribution', () => {
    expect(() => wrkFigures('Requests/sec:  100.00\n')).toThrow(/not a wrk --latency report/);
  });
});

describe('wrk request script', () => {
  it('holds any text as a Lua long string, spaced inside an index', () => {
    const script = wrkScript({ method: 'POST', body: '{"ids":["a]]b"]}', headers: { 'content-type': 'application/json' } });
    expect(script).toBe('wrk.method = [[\nPOST]]\n' + 'wrk.body = [=[\n{"ids":["a]]b"]}]=]\n' + 'wrk.headers[ [[\ncontent-type]] ] = [[\napplication/json]]\n');
    expect(wrkScript({})).toBe('wrk.method = [[\nGET]]\n');
  });
});
