import { KEEP_ALIVE } from '@libp2p/interface'
/** Listen addresses used when `init.listen` is not given: loopback TCP and WebSockets on free ports. */
export const DEFAULT_LISTEN: readonly string[] = ['/ip4/127.0.0.1/tcp/0', '/ip4/127.0.0.1/tcp/0/ws']

/** Listen addresses for a node that should be reachable on the LAN (what the CLI passes). */
export const LAN_LISTEN: readonly string[] = ['/ip4/0.0.0.0/tcp/0', '/ip4/0.0.0.0/tcp/0/ws']

/** Kademlia protocol id: a private DHT, never mixed with the public IPFS (amino) DHT. */
export const DHT_PROTOCOL = '/jobmesh/kad/1.0.0'

/** File (inside the data dir) holding the protobuf-encoded Ed25519 private key, mode 0600. */
export const IDENTITY_FILE = 'identity.key'

/** Folder (inside the data dir) of the LevelDB datastore: libp2p peer store, DHT records, helia pins, CRDT updates. */
export const DATASTORE_DIR = 'datastore'

/** Folder (inside the data dir) of the filesystem blockstore: IPFS blocks. */
export const BLOCKSTORE_DIR = 'blocks'

/**
 * How often libp2p's connection monitor pings each open connection, in ms (its default is 10 000). Every ping opens a
 * stream on both sides, negotiates its protocol and writes the peer store, and both ends of every connection ping:
 * measured on 8 idle peer processes of one machine, pings were about half of a peer's idle CPU. A connection that
 * fails still ends at once when its socket closes, and yamux keeps idle connections alive with its own ping frames;
 * the monitor only has to find connections whose far end vanished without closing them.
 */
export const DEFAULT_CONNECTION_PING_MS = 60_000

/**
 * Gossipsub heartbeat in ms. The libp2p default (1 000 ms) tunes meshes for large public networks; jobmesh runs
 * small meshes (2-50 peers on a LAN or one machine), where a newly subscribed peer is grafted on the next
 * heartbeat, so a shorter heartbeat halves the time until it receives forwarded messages. Publishing itself uses
 * flood publish and does not wait for a heartbeat.
 */
export const DEFAULT_GOSSIP_HEARTBEAT_MS = 500

/**
 * Mesh degree. With the defaults (D 6, Dlo 4) a network of 3-4 peers is always "under-meshed" and keeps grafting;
 * D 4 / Dlo 2 / Dhi 8 makes every peer of a small network a mesh member at once and still bounds fan-out on larger ones.
 */
export const DEFAULT_GOSSIP_D = 4
export const DEFAULT_GOSSIP_DLO = 2
export const DEFAULT_GOSSIP_DHI = 8
/** Outbound mesh quota, must be < Dlo and <= D / 2. */
export const DEFAULT_GOSSIP_DOUT = 1
/** Peers to gossip IHAVE to per heartbeat. */
export const DEFAULT_GOSSIP_DLAZY = 4

/**
 * Smallest message (bytes of data) for which a peer sends IDONTWANT to its mesh peers. gossipsub's default (512)
 * makes nearly every coordination message (CRDT updates of ~0.8 KiB, room snapshots of ~1.5 KiB) cost each receiver
 * an IDONTWANT to every mesh peer, more than the duplicate copies it saves: 8 peer processes on 2 cores, 800-byte
 * messages, 4 paired runs (bench/gossip-cost.bench.js): 41-53 ms of CPU per message network-wide with the default,
 * 38-48 ms with this (7 % less in every pair), delivered in 6.7-8.1 ms instead of 7.3-10.9. Large messages (big doc
 * updates, up to 128 KiB) still use it.
 */
export const DEFAULT_GOSSIP_IDONTWANT_MIN_BYTES = 16 * 1024

/**
 * Source addresses gossipsub's IP colocation penalty (P6) leaves alone. By default it scores every peer sharing an
 * address with more than 10 others at -5 x (peers - 10)^2, from 15 peers below -80, where it ignores all their RPCs,
 * subscriptions included: 16 peers on one machine (the local network, the demo, the benchmark) graylisted one another and never
 * learned a single subscription. Peers on loopback are this machine's own; the penalty still applies to any other
 * address.
 */
export const DEFAULT_COLOCATION_WHITELIST: readonly string[] = ['127.0.0.1', '::1']

/**
 * Delay before the bootstrap peers are discovered (and dialled), in ms. @libp2p/bootstrap waits 1 s by default;
 * a jobmesh node has nothing else to do before it knows a peer, so it dials almost at once.
 */
export const DEFAULT_BOOTSTRAP_DELAY_MS = 10

/**
 * The tag of the bootstrap peers in the peer store. It starts with libp2p's `keep-alive`, so the connection manager's
 * reconnect queue redials a bootstrap peer whose connection dropped (5 tries with backoff, then the tag goes), and a
 * restarted node dials it at once; @libp2p/bootstrap's own `bootstrap` tag only protects the connection from pruning.
 * For most peers of a jobmesh network the bootstrap peer is the only way in.
 */
export const BOOTSTRAP_TAG = `${KEEP_ALIVE}-bootstrap`

/**
 * Inbound connections per second accepted from one host. libp2p's default (5) suits the public internet; a LAN or a
 * laptop runs many jobmesh peers behind one address (a devnet, a rack), whose dials would otherwise be refused.
 */
export const DEFAULT_INBOUND_CONNECTION_THRESHOLD = 64

/** How often the gossip repair looks for peers without an outbound gossipsub stream (ms). */
export const DEFAULT_GOSSIP_REPAIR_INTERVAL_MS = 5_000

/**
 * How long a connected gossipsub peer may be without this node's outbound stream before the connection is renewed
 * (ms): far longer than a stream takes to open on a loaded machine (under a second), short next to a job.
 */
export const DEFAULT_GOSSIP_REPAIR_GRACE_MS = 15_000

/** Bound of the redial of a renewed connection (ms). */
export const GOSSIP_REDIAL_TIMEOUT_MS = 10_000

/**
 * How long a peer given bootstrap peers waits for its first connection before it registers or resumes its node in the
 * verifier draw, in ms: none by then and the start is refused (`NoPeerReachableError`), nothing sent to the chain.
 */
export const DEFAULT_JOIN_TIMEOUT_MS = 30_000

/**
 * How often libp2p's peer records, kept in memory while a node runs (node/peer-records.ts), are written to the data
 * dir's LevelDB; a stop writes them too. A node killed outright loses at most this much of its peers' address and
 * protocol updates: it learns them again from its bootstrap list and the peers that dial it.
 */
export const DEFAULT_PEER_RECORDS_FLUSH_MS = 30_000
