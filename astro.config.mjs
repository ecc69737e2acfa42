// @ts-check
// The site's pages (site/pages). Every page is prerendered by the build's "site" stage (build/stages/site-stage.ts)
// except /browse, which the shim renders per request through the middleware handler of @astrojs/node.
// The stage passes the catalog's runtime directory and public origin in the environment.
import { defineConfig } from 'astro/config';
import node from '@astrojs/node';

export default defineConfig({
  // The Astro site lives apart from the shared core (src/), which it imports like build/ and server/ do.
  srcDir: './site',
  site: process.env.CATALOG_BASE_URL || 'http://localhost:8080',
  output: 'static',
  // Middleware mode builds <outDir>/server/entry.mjs exporting handler(req, res, next, locals) for the shim.
  adapter: node({ mode: 'middleware' }),
  trailingSlash: 'ignore',
  build: {
    // A page file named as its route file is: listings/[slug].astro and owners/[owner].astro write
    // listings/<slug>.html and owners/<owner>.html, one file in a shared folder (no folder per page: see
    // docs/decisions/017-flat-page-files.md); <route>/index.astro writes <route>/index.html. The shim and the front
    // serve <path>.html for <path>/, so every URL of SITE_PATHS keeps its slash.
    format: 'preserve',
    // One page at a time: more concurrency measured slower and larger at 100k pages (one CPU does the rendering).
    concurrency: 1,
    // One stylesheet for every page, cached once (immutable /_astro/ URL) instead of repeated in 100k pages.
    inlineStylesheets: 'never',
  },
  // Two pages claiming one URL is a bug (e.g. two listings with one slug): fail the build instead of dropping one.
  prerenderConflictBehavior: 'error',
  devToolbar: { enabled: false },
  // No sessions, no image service, nothing fetched: the pages only read the build's runtime artifacts.
  session: false,
  image: { service: { entrypoint: 'astro/assets/services/noop' } },
  // Code in the docs is shown as plain preformatted text, in the site's own colours.
  markdown: { syntaxHighlight: false },
  vite: {
    // The bundles live in the build directory, outside this project, where no node_modules is found: bundle
    // their dependencies into them (the prerender bundle runs during the build, the server bundle in the shim).
    environments: {
      ssr: { resolve: { noExternal: true } },
      prerender: { resolve: { noExternal: true } },
    },
    logLevel: 'warn',
    // No script inlined into a page, however small: the policy allows scripts from this origin only (script-src
    // 'self', src/domain/contract/response-headers.ts), so an inlined one would be refused (the listing page's ranks).
    build: { assetsInlineLimit: 0 },
  },
});
