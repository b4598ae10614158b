import { describe, expect, it } from 'vitest'
import { readWallet } from '../../src/cli/wallet-options.js'

describe('the chain options of jobmesh start and claim', () => {
  it('an empty variable is one left unset: no chain, no complaint about a missing --rpc', async () => {
    await expect(readWallet({ rpc: '', deployment: '', keyFile: '' })).resolves.toBeUndefined()
    await expect(readWallet({ deployment: '' })).resolves.toBeUndefined()
  })

  it('a deployment or key file without --rpc is refused with a usage error naming what was given, flag or variable', async () => {
    await expect(readWallet({ deployment: 'deployments/31337.json' })).rejects.toMatchObject({ name: 'UsageError', message: '--deployment needs --rpc (or JOBMESH_RPC_URL)' })
    await expect(readWallet({ rpc: '', keyFile: 'wallet.key' })).rejects.toMatchObject({ name: 'UsageError', message: '--key-file needs --rpc (or JOBMESH_RPC_URL)' })
    await expect(readWallet({ keyFile: 'wallet.key', deployment: 'd.json' })).rejects.toMatchObject({ message: '--key-file and --deployment need --rpc (or JOBMESH_RPC_URL)' })
    // the deployment from the environment (as `jobmesh devnet`'s export lines set it): named as the variable
    const before = process.env.JOBMESH_DEPLOYMENT
    process.env.JOBMESH_DEPLOYMENT = '/tmp/devnet/deployment-31337.json'
    try {
      await expect(readWallet({ deployment: '/tmp/devnet/deployment-31337.json' })).rejects.toMatchObject({ message: 'JOBMESH_DEPLOYMENT needs --rpc (or JOBMESH_RPC_URL)' })
    } finally {
      if (before === undefined) delete process.env.JOBMESH_DEPLOYMENT
      else process.env.JOBMESH_DEPLOYMENT = before
    }
  })

  it('--rpc with an empty deployment variable asks for the deployment file', async () => {
    await expect(readWallet({ rpc: 'http://127.0.0.1:8545', deployment: '' })).rejects.toMatchObject({ name: 'UsageError', message: expect.stringMatching(/needs --deployment/) })
  })
  it('a key file that is not there is said in words', async () => {
    await expect(readWallet({ rpc: 'http://127.0.0.1:8545', deployment: 'd.json', keyFile: '/nonexistent/wallet.key' }))
      .rejects.toMatchObject({ name: 'UsageError', message: 'cannot read the key file /nonexistent/wallet.key: no such file' })
  })
})
