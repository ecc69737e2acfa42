// The baseline: a bare node:http server answering a fixed body. BODY_BYTES makes it a JSON body the size of the
// shim's answers; BODY_FILE (with BODY_TYPE) sends exactly the bytes the shim sent, so a comparison measures the
// shim's work and not the cost of moving more or fewer bytes.
import { readFileSync } from 'node:fs';
import { createServer } from 'node:http';

function jsonBody(size: number): string {
  const item = JSON.stringify({ id: 'skill:owner/repo#item', name: 'item', description: 'x'.repeat(120) });
  const items: string[] = [];
  while ((items.length + 1) * (item.length + 1) + 12 < size) items.push(item);
  return `{"items":[${items.join(',')}]}`.padEnd(size, ' ');
}

const body = process.env.BODY_FILE ? readFileSync(process.env.BODY_FILE) : Buffer.from(jsonBody(Number(process.env.BODY_BYTES ?? 3500)));
const type = process.env.BODY_TYPE ?? 'application/json; charset=utf-8';
createServer((req, res) => {
  // Drain a request body (the batch rows POST one) before answering, as any server must.
  req.resume();
  req.on('end', () => {
    res.setHeader('Content-Type', type);
    res.setHeader('Content-Length', body.length);
    res.end(body);
  });
}).listen(Number(process.env.PORT), process.env.HOST ?? '127.0.0.1');
process.on('SIGTERM', () => process.exit(0));
