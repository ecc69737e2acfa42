/// <reference types="astro/client" />
import type { BrowseLocals } from '../src/page-model/browse-locals.ts';

// What the shim passes to the server-rendered /browse page (server/routes/site-routes.ts). This file is a module
// (it imports a type), so Astro's global App namespace is extended explicitly.
declare global {
  namespace App {
    // Astro merges this declaration into its own App.Locals: an interface, not a type alias, is what it extends.
    // eslint-disable-next-line @typescript-eslint/no-empty-object-type
    interface Locals extends Partial<BrowseLocals> {}
  }
}
