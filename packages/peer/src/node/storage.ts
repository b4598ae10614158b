import { mkdir, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { MemoryBlockstore } from 'blockstore-core/memory'
import { MemoryDatastore } from 'datastore-core'
import { LevelDatastore } from 'datastore-level'
import { BLOCKSTORE_DIR, DATASTORE_DIR } from './constants.js'
import { DATASTORE_RECOVERY } from '../datastore-recovery.js'
import { errorMessage } from './error-message.js'
import { LocalBlockstore } from './local-blockstore.js'
import { peerRecords } from './peer-records.js'
import type { PeerRecordsDatastore } from './peer-records.js'
import { InvalidDataDirError } from './errors.js'
import type { HeliaInit } from 'helia'
import type { Datastore } from 'interface-datastore'

type Blockstore = NonNullable<HeliaInit['blockstore']>

export interface Storage {
  datastore: Datastore
  blockstore: Blockstore
  close(): Promise<void>
}

/** Creates the data dir if needed and checks that it is a writable directory. */
export async function ensureDataDir (dataDir: string): Promise<void> {
  try {
    await mkdir(dataDir, { recursive: true, mode: 0o700 })
    const s = await stat(dataDir)
    if (!s.isDirectory()) {
      throw new Error('not a directory')
    }
  } catch (err) {
    throw new InvalidDataDirError(`bad data dir ${dataDir}: ${errorMessage(err)}`)
  }
}

/**
 * A LevelDB datastore (libp2p's peer records held in memory in front of it: node/peer-records.ts) and a filesystem
 * blockstore under `dataDir`, or both in memory without one.
 */
export async function openStorage (dataDir?: string): Promise<Storage> {
  if (dataDir == null) {
    return { datastore: new MemoryDatastore(), blockstore: new MemoryBlockstore(), close: async () => {} }
  }
  const datastore = new LevelDatastore(join(dataDir, DATASTORE_DIR))
  const blockstore = new LocalBlockstore(join(dataDir, BLOCKSTORE_DIR))
  try {
    await datastore.open()
  } catch (err) {
    throw new InvalidDataDirError(`cannot open datastore in ${dataDir}: ${datastoreProblem(err)}`, { cause: err })
  }
  try {
    await blockstore.open()
  } catch (err) {
    await datastore.close()
    throw new InvalidDataDirError(`cannot open blockstore in ${dataDir}: ${errorMessage(err)}`)
  }
  // libp2p's peer records live in memory while the node runs (written back every 30 s and at the stop)
  let records: PeerRecordsDatastore
  try {
    records = await peerRecords(datastore)
  } catch (err) {
    await blockstore.close()
    await datastore.close()
    throw new InvalidDataDirError(`cannot read the peer records in ${dataDir}: ${errorMessage(err)}`, { cause: err })
  }
  return {
    datastore: records,
    blockstore,
    close: async () => {
      try {
        await records.close()
      } finally {
        await blockstore.close()
        await datastore.close()
      }
    }
  }
}

/**
 * Why LevelDB did not open, as far as can be told: datastore-level keeps only "Database failed to open", not its
 * cause, so a lock another process holds (a second jobmesh peer on the same data dir) and a damaged store look alike.
 * `jobmesh start` refuses a data dir whose peer answers before it gets here; two starts at once, or a damaged store,
 * get this ("in use by another node?" alone sent people looking for a node that did not run).
 */
function datastoreProblem (err: unknown): string {
  return `another process has it open (another jobmesh peer on this data dir?), or it is damaged (${errorMessage(err)}); ` +
    `if no other process uses it, ${DATASTORE_RECOVERY}`
}
