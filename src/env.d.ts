/// <reference types="astro/client" />
// What the shim passes to the server-rendered /browse page (server/routes/site-routes.ts).
declare namespace App {
  interface Locals extends Partial<import('./site/browse.ts').BrowseLocals> {}
}
