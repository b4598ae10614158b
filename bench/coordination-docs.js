// The doc store of a coordination bench peer (in the bench process or a peer process): with the CRDT ownership
// guard, as `jobmesh start` builds it; COORD_BENCH_GUARD=0 leaves the guard out (to compare with measurements taken
// before the bench had it).
import { coordGuards, recordVerifier } from '@jobmesh/peer/coord'
import { createDocStore } from '@jobmesh/peer/crdt'

export function benchDocStore (node, counters) {
  return createDocStore({ ...node, counters }, process.env.COORD_BENCH_GUARD === '0' ? {} : { guards: coordGuards(recordVerifier(counters)) })
}
