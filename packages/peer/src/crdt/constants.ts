/** Stream protocol of the state-vector catch-up (docs/crdt.md describes the frames). */
export const SYNC_PROTOCOL = '/jobmesh/sync/1.0.0'

/** Gossipsub topic prefix; a doc's topic is the prefix + its name. */
export const DOC_TOPIC_PREFIX = '/jobmesh/1/doc/'

/** Datastore prefix; a doc's keys live under `/jobmesh/crdt/<encodeURIComponent(name)>/`. */
export const DATASTORE_PREFIX = '/jobmesh/crdt'

/** The index doc (DESIGN 5). */
export const INDEX_DOC = 'jobmesh/index'

/** Prefix of a job doc name: `jobmesh/job/<jobId>`. */
export const JOB_DOC_PREFIX = 'jobmesh/job/'

/**
 * Largest update (bytes, after batching one tick's updates) sent on gossipsub. Gossipsub caps a message at about
 * 1 MiB by default and every byte is flooded to every mesh peer, so bigger diffs go over the sync stream
 * (a push-sync to every subscriber of the doc's topic) instead.
 */
export const DEFAULT_MAX_UPDATE_BYTES = 128 * 1024

/** Sync frames carry diffs in chunks of at most this many bytes. */
export const DEFAULT_SYNC_CHUNK_BYTES = 1024 * 1024

/** Largest diff accepted in one sync exchange (bytes): what this peer pulls (it asked for it). */
export const DEFAULT_MAX_SYNC_BYTES = 512 * 1024 * 1024

/**
 * Largest diff another peer may push to this one in one sync exchange (bytes; only peers admitted to the doc push at
 * all). A push carries what the pusher has and we lack: its own writes (a tick's merged updates too big for gossip,
 * whose cap is DEFAULT_MAX_UPDATE_BYTES, 128 KiB), a joiner's offline writes, at most the whole doc to a subscriber
 * still catching up. The largest doc measured is a job of 100 000 MicroJobs, 8.7 MB (docs/crdt.md, Numbers): 16 MiB
 * holds it twice. A push over it is refused (`DiffTooLargeError`, `syncRefused`) as soon as its frames pass the cap,
 * and nothing of it is applied; what it carried still arrives by pulls, which keep DEFAULT_MAX_SYNC_BYTES. Before
 * it a push shared that 512 MiB cap, so one stream of a peer that may write nothing could hold 512 MiB here.
 */
export const DEFAULT_MAX_PUSH_BYTES = 16 * 1024 * 1024

/**
 * A sync stream holds at most this many frames' worth of bytes (DEFAULT_SYNC_CHUNK_BYTES + 64 KiB each) received and
 * not read yet; past that it is reset. In the protocol a side sends nothing while the other is not reading but a
 * small frame (a STATE_VECTOR, a REQUEST), so honest peers stay far below; without the bound a peer could stream into
 * memory while this side wrote its diff or waited for an admission check (yamux grants window as data arrives).
 */
export const SYNC_READ_AHEAD_FRAMES = 2

/**
 * Answers of closed docs (read from storage, docs/crdt.md, Sync protocol) served to one peer at once; its further
 * requests wait for one of them to end (or for their timeout). Each answer loads the doc's stored state and encodes
 * a diff of it, and a peer may open 64 sync streams per connection.
 */
export const MAX_STORED_ANSWERS_PER_PEER = 2

/** One sync exchange (dial, both diffs) must finish within this many ms. */
export const DEFAULT_SYNC_TIMEOUT_MS = 30_000

/** At most this many syncs run at once when a doc is opened. */
export const DEFAULT_SYNC_CONCURRENCY = 4

/** Compact a doc's stored updates into one snapshot after this many updates. */
export const DEFAULT_COMPACT_EVERY = 500

/** And at least this often (ms) if there was any update since the last compaction. */
export const DEFAULT_COMPACT_INTERVAL_MS = 60_000

/** Version byte in front of every Yjs update published on a doc topic. */
export const GOSSIP_UPDATE_VERSION = 1

/** Timeout of each exchange of `DocStore.confirm` (ms): short, a lease settle waits for it. */
export const DEFAULT_CONFIRM_TIMEOUT_MS = 2_000

/** Least time between two pulls from one peer for an update's missing dependencies (ms). */
export const DEFAULT_PENDING_PULL_INTERVAL_MS = 250

/**
 * Gossip messages per second a peer may publish on one doc topic on average (token bucket), and the burst. Honest
 * peers publish at most one merged update per event-loop tick per doc; beyond the rate messages are dropped, and a
 * peer that stays a whole burst beyond it is rejected (its score falls).
 */
export const DEFAULT_GOSSIP_RATE_PER_SECOND = 200
export const DEFAULT_GOSSIP_BURST = 400
/**
 * A doc holding at most this many Yjs items (the sum of its state vector's clocks) is young: a job just announced.
 * A new subscriber of a young doc gets one exchange both ways instead of a pull and a deferred push (catch-up.ts):
 * the push's deferral saves bytes on a large doc, and a young doc has none to save, while every peer of a new job
 * subscribes at once and the exchanges at its start grow with the square of its peers.
 */
export const YOUNG_DOC_MAX_ITEMS = 1_000

/**
 * Mesh peers a doc topic needs before this store publishes its updates to the mesh only (gossipsub's Dlo in the
 * node's configuration). Until then (a job just announced: the mesh forms at the heartbeats after every peer
 * subscribed) an update goes to every known subscriber (flood publishing). Every receiver forwards a message to
 * its own mesh, so flood publishing added the N - 1 direct copies to the ~N (D - 1) forwarded ones: 16 peer
 * processes ran ~12 % more CPU per MicroJob and a longer makespan (docs/coordination.md, Seventeenth round).
 */
export const MESH_PUBLISH_MIN_PEERS = 2

/** gossipsub's seen-cache TTL when the pubsub does not tell it (its default, 2 min): within it gossipsub drops copies itself. */
export const DEFAULT_GOSSIP_SEEN_TTL_MS = 120_000

/**
 * The replay window's lag as a share of the seen TTL (replay-window.ts): a replay is refused at most two lags after
 * the original arrived, half the TTL, so none passes between gossipsub's cache and the window; an honest message is
 * taken for a replay only if it arrives a lag (30 s by default) after a later message of its author.
 */
export const REPLAY_LAG_OF_SEEN_TTL = 0.25

/**
 * Messages one peer may relay to this one that this node holds back without penalty, on all of its guarded topics
 * together (a token bucket per relaying peer): coordination messages of authors that may not publish there (not
 * registered nodes) and doc updates held back (`later`: an index write of a node that is not registered, past its
 * budget). Within it they are ignored, past it rejected, so a relay that sprays them (each costs this peer a signature
 * check and more, and a fresh key costs nothing) loses its score and is graylisted. An honest relay forwards such
 * messages only while it admits what this peer does not yet (a `no` is cached 10 s; the budgets of index writes):
 * at most about an author's rate for that long (1 200 coordination messages), under the burst.
 */
export const DEFAULT_HELD_BACK_PER_RELAY = { ratePerSecond: 100, burst: 2_000 }
