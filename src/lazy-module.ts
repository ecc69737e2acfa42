// A package loaded on its first use instead of at start. The shim's time to its first answer is mostly its module
// graph; a package only some deployments or some requests need (ioredis without REDIS_URL, jose without a staff key,
// yaml until a front matter is read) is loaded through require, synchronously, when first asked for. Node 24 requires
// CommonJS and synchronous ESM alike; the type comes from an `import type` of the same package.
import { createRequire } from 'node:module';

export function lazyModule<T>(specifier: string, from: string): () => T {
  let loaded: T | undefined;
  return () => (loaded ??= createRequire(from)(specifier) as T);
}
