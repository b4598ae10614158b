import { describe, expect, it } from 'vitest'
import { readWallet } from '../../src/cli/wallet-options.js'

describe('the chain options of jobmesh start and claim', () => {
  it('an empty variable is one left unset: no chain, no complaint about a missing --rpc', async () => {
    await expect(readWallet({ rpc: '', deployment: '', keyFile: '' })).resolves.toBeUndefined()
    await expect(readWallet({ deployment: '' })).resolves.toBeUndefined()
  })

  it('a deployment or key file without --rpc is refused with a usage error', async () => {
    await expect(readWallet({ deployment: 'deployments/31337.json' })).rejects.toMatchObject({ name: 'UsageError', message: expect.stringMatching(/need --rpc/) })
    await expect(readWallet({ rpc: '', keyFile: 'wallet.key' })).rejects.toMatchObject({ name: 'UsageError' })
  })

  it('--rpc with an empty deployment variable asks for the deployment file', async () => {
    await expect(readWallet({ rpc: 'http://127.0.0.1:8545', deployment: '' })).rejects.toMatchObject({ name: 'UsageError', message: expect.stringMatching(/needs --deployment/) })
  })
  it('a key file that is not there is said in words', async () => {
    await expect(readWallet({ rpc: 'http://127.0.0.1:8545', deployment: 'd.json', keyFile: '/nonexistent/wallet.key' }))
      .rejects.toMatchObject({ name: 'UsageError', message: 'cannot read the key file /nonexistent/wallet.key: no such file' })
  })
})
