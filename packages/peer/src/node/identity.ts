import { chmod, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { generateKeyPair, privateKeyFromProtobuf, privateKeyToProtobuf } from '@libp2p/crypto/keys'
import { IDENTITY_FILE } from './constants.js'
import { errorCode, errorMessage } from './error-message.js'
import { InvalidDataDirError, InvalidIdentityError } from './errors.js'
import type { Ed25519PrivateKey } from '@libp2p/interface'

/**
 * Loads the node's Ed25519 key from `<dataDir>/identity.key` (protobuf, as libp2p encodes keys), creating it with
 * mode 0600 on first start. A file kept outside the datastore can be backed up, copied or inspected on its own, and
 * its permissions are the operator's guarantee that no other local user reads it.
 */
export async function loadOrCreateIdentity (dataDir: string): Promise<Ed25519PrivateKey> {
  const file = join(dataDir, IDENTITY_FILE)
  let bytes: Uint8Array | undefined
  try {
    bytes = await readFile(file)
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') {
      throw new InvalidDataDirError(`cannot read ${file}: ${errorMessage(err)}`)
    }
  }
  if (bytes != null) {
    let key
    try {
      key = privateKeyFromProtobuf(bytes)
    } catch (err) {
      throw new InvalidIdentityError(`${file} is not a protobuf private key: ${errorMessage(err)}`)
    }
    if (key.type !== 'Ed25519') {
      throw new InvalidIdentityError(`${file} holds a ${key.type} key, expected Ed25519`)
    }
    await checkKeyPair(key, file)
    return key
  }
  const key = await generateKeyPair('Ed25519')
  const tmp = `${file}.tmp`
  try {
    await writeFile(tmp, privateKeyToProtobuf(key), { mode: 0o600 })
    await chmod(tmp, 0o600)
    await rename(tmp, file)
  } catch (err) {
    throw new InvalidDataDirError(`cannot write ${file}: ${errorMessage(err)}`)
  }
  return key
}

/**
 * The file holds the private seed and the public key side by side: a seed damaged on disk gives another key whose
 * signatures the PeerId's public key does not verify, and such a node started with its old PeerId while every peer
 * refused its handshakes (no connection, drawn as a verifier all the same).
 *
 * @throws InvalidIdentityError when a signature of the key does not verify with its public key
 */
async function checkKeyPair (key: Ed25519PrivateKey, file: string): Promise<void> {
  const probe = new TextEncoder().encode('jobmesh identity check')
  let valid: boolean
  try {
    valid = await key.publicKey.verify(probe, await key.sign(probe))
  } catch {
    valid = false
  }
  if (!valid) {
    throw new InvalidIdentityError(`${file} is damaged: its private key does not match its public key (PeerId ${key.publicKey.toString()}); restore it from a backup`)
  }
}
