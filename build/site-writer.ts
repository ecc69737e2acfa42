// The one writer of generated static files: refuses paths outside the site directory, writes brotli and
// gzip variants next to each compressible file, and records content types that a file name cannot carry
// (e.g. /.well-known/api-catalog) in content-types.json for the shim's static handler.
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs';
import { dirname, join, normalize, sep } from 'node:path';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';

export interface GeneratedFile {
  /** Site path, e.g. /openapi.json or /.well-known/api-catalog. */
  path: string;
  contentType: string;
  body: string | Buffer;
}

const IMPLIED: Record<string, string> = {
  '.html': 'text/html', '.json': 'application/json', '.txt': 'text/plain', '.md': 'text/markdown', '.xml': 'application/xml',
  '.yaml': 'application/yaml', '.css': 'text/css', '.js': 'text/javascript',
};
const COMPRESS_MIN_BYTES = 512;

export class SiteWriter {
  readonly root: string;
  private readonly contentTypes: Record<string, string>;

  constructor(root: string) {
    this.root = root;
    mkdirSync(root, { recursive: true });
    const existing = join(root, 'content-types.json');
    this.contentTypes = existsSync(existing) ? JSON.parse(readFileSync(existing, 'utf8')) : {};
  }

  write(file: GeneratedFile, options: { compress?: boolean } = {}): void {
    const relative = normalize(file.path).replace(/^([/\\])+/, '');
    if (relative === '' || relative.split(sep).includes('..')) throw new Error(`refusing to write outside the site: ${file.path}`);
    const full = join(this.root, relative);
    mkdirSync(dirname(full), { recursive: true });
    const body = typeof file.body === 'string' ? Buffer.from(file.body) : file.body;
    writeFileSync(full, body);
    if ((options.compress ?? true) && body.length >= COMPRESS_MIN_BYTES) {
      // Small files get the strongest settings; large shards a faster level (brotli 11 costs ~40x level 6).
      const large = body.length > 64 * 1024;
      writeFileSync(`${full}.br`, brotliCompressSync(body, { params: { [constants.BROTLI_PARAM_QUALITY]: large ? 6 : 11, [constants.BROTLI_PARAM_SIZE_HINT]: body.length } }));
      writeFileSync(`${full}.gz`, gzipSync(body, { level: large ? 6 : 9 }));
    }
    const ext = relative.includes('.') ? relative.slice(relative.lastIndexOf('.')) : '';
    const base = file.contentType.split(';')[0]!.trim();
    if (IMPLIED[ext] !== base) this.contentTypes['/' + relative.split(sep).join('/')] = file.contentType;
  }

  /** Persists the content-type overrides; call once after the last write. */
  finish(): void {
    writeFileSync(join(this.root, 'content-types.json'), JSON.stringify(this.contentTypes, null, 1));
  }
}
