import { Key } from 'interface-datastore'
import type { Datastore } from 'interface-datastore'

/** Datastore prefix of the settlement journal. */
const PREFIX = '/jobmesh/settlement'

/**
 * Duties a peer must finish even if it restarts in between (docs/settlement.md, Restarts): finalizations it took
 * on, commit salts of its verifications, and how far its chain watchers got. Values are small UTF-8 JSON.
 */
export interface DutyJournal {
  get(key: string): Promise<string | undefined>
  put(key: string, value: string): Promise<void>
  delete(key: string): Promise<void>
  /** Entries whose key starts with `prefix` (without the journal's own prefix). */
  list(prefix: string): Promise<Array<{ key: string, value: string }>>
}

function storeKey (key: string): Key {
  if (!/^[A-Za-z0-9@/_.-]+$/.test(key)) throw new TypeError(`bad journal key ${key}`)
  return new Key(`${PREFIX}/${key}`)
}

/** A journal in the node's datastore (LevelDB under the data dir; survives restarts). */
export function datastoreJournal (datastore: Datastore): DutyJournal {
  return {
    async get (key) {
      try {
        return new TextDecoder().decode(await datastore.get(storeKey(key)))
      } catch (err) {
        if ((err as Error).name === 'NotFoundError') return undefined
        throw err
      }
    },
    async put (key, value) {
      await datastore.put(storeKey(key), new TextEncoder().encode(value))
    },
    async delete (key) {
      await datastore.delete(storeKey(key))
    },
    async list (prefix) {
      const out: Array<{ key: string, value: string }> = []
      for await (const e of datastore.query({ prefix: `${PREFIX}/${prefix}` })) {
        out.push({ key: e.key.toString().slice(PREFIX.length + 1), value: new TextDecoder().decode(e.value) })
      }
      return out
    }
  }
}
