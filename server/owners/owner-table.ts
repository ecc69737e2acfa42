// The snapshot's owner table (src/domain/listing/owner-figures.ts, shared with the owner pages): one pass over the
// snapshot's ids and figure columns, made on first use.
import { LISTING_TYPES } from '../../src/domain/listing/listing-types.ts';
import { ownerTable, type OwnerTable } from '../../src/domain/listing/owner-figures.ts';
import { REAL_FIGURE } from '../../src/artifacts/runtime-manifest.ts';
import { snapshotResource } from '../catalog/snapshot.ts';

/** The snapshot's owner table, made on first use from its ids and figure columns. */
export const OWNER_TABLE = snapshotResource('owner-table', (snapshot): OwnerTable => {
  const { store } = snapshot;
  const { columns } = store;
  return ownerTable(
    (function* rows() {
      for (let doc = 0; doc < store.count; doc++) {
        const id = store.idOf(doc);
        const repo = id.slice(id.indexOf(':') + 1, id.lastIndexOf('#'));
        const real = columns.realFigures[doc]!;
        yield {
          repo,
          type: LISTING_TYPES[columns.type[doc]!]!,
          installs: columns.installs[doc]!,
          stars: columns.stars[doc]!,
          installsReal: (real & REAL_FIGURE.installs) !== 0,
          starsReal: (real & REAL_FIGURE.stars) !== 0,
        };
      }
    })(),
  );
});
