import { execFile } from 'node:child_process'
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { exportLines } from '../../src/cli/commands/devnet.js'
import { restartCommand } from '../../src/cli/restart-line.js'
import { CLI_BIN } from '../../src/devnet/index.js'
import { collectListenAddr, collectMultiaddr } from '../../src/cli/options.js'

describe('jobmesh devnet exports', () => {
  it('prints the four variables both CLIs read, and the bootstrap list parses back', () => {
    const lines = exportLines({
      anvil: { rpcUrl: 'http://127.0.0.1:40000' } as never,
      deploymentFile: '/tmp/d/deployment-31337.json',
      bootstrap: ['/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWPfna2frvVfYnnXEWwpZuwYVub6ktHUrBT2Xtf3n7zbB6', '/ip4/127.0.0.1/tcp/4002/p2p/12D3KooWG1Sok8sSv7TsWQVcU92DwTnRXP8UoKSi2wVoB2oSDu19'],
      dapp: { address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266', privateKey: '0x' + 'ab'.repeat(32) }
    })
    expect(lines).toEqual([
      'export JOBMESH_RPC_URL=http://127.0.0.1:40000',
      'export JOBMESH_DEPLOYMENT=/tmp/d/deployment-31337.json',
      'export JOBMESH_BOOTSTRAP=/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWPfna2frvVfYnnXEWwpZuwYVub6ktHUrBT2Xtf3n7zbB6,/ip4/127.0.0.1/tcp/4002/p2p/12D3KooWG1Sok8sSv7TsWQVcU92DwTnRXP8UoKSi2wVoB2oSDu19',
      `export JOBMESH_PRIVATE_KEY=0x${'ab'.repeat(32)}`
    ])
    const value = lines[2].slice('export JOBMESH_BOOTSTRAP='.length)
    expect(collectMultiaddr(value)).toHaveLength(2)
    expect(() => collectMultiaddr('not-a-multiaddr')).toThrow('"not-a-multiaddr" is not a multiaddr (example: /ip4/127.0.0.1/tcp/4001/p2p/12D3KooW...)')
    // a listen address is this node's own: its example names no peer
    expect(() => collectListenAddr('/ip4/0.0.0.0/tcp')).toThrow('"/ip4/0.0.0.0/tcp" is not a multiaddr (example: /ip4/0.0.0.0/tcp/4001)')
    expect(collectListenAddr('/ip4/0.0.0.0/tcp/0', ['/ip4/0.0.0.0/tcp/0/ws'])).toHaveLength(2)
  })

  it('a peer that exited starts again as the devnet started it, on its old port, joining through a peer still running, its dir quoted for the shell', () => {
    const peer0 = '/ip4/127.0.0.1/tcp/4001/p2p/12D3KooWPfna2frvVfYnnXEWwpZuwYVub6ktHUrBT2Xtf3n7zbB6'
    const peer2 = '/ip4/127.0.0.1/tcp/4003/p2p/12D3KooWG1Sok8sSv7TsWQVcU92DwTnRXP8UoKSi2wVoB2oSDu19'
    const dataDir = "/tmp/my net's dir/peer-1"
    const args = ['--listen', '/ip4/127.0.0.1/tcp/0', '--rpc', 'http://127.0.0.1:40000', '--key-file', `${dataDir}/wallet.key`, '--bootstrap', peer0, '--vram', '16']
    // where it listened: the port the system gave it for /tcp/0 (its WebSocket one is another listen address's)
    const addresses = ['/ip4/127.0.0.1/tcp/4006/ws/p2p/12D3KooWRBy97UB99e3J6hiPesre1MZeuNQvfan4gBziswrRJsNK', '/ip4/127.0.0.1/tcp/4002/p2p/12D3KooWRBy97UB99e3J6hiPesre1MZeuNQvfan4gBziswrRJsNK']
    // peer-0, its bootstrap, exited too: peer-2's TCP address (not its WebSocket one) instead
    expect(restartCommand({ dataDir, args, addresses }, [{ addresses: ['/ip4/127.0.0.1/tcp/4004/ws/p2p/12D3KooWG1Sok8sSv7TsWQVcU92DwTnRXP8UoKSi2wVoB2oSDu19', peer2] }]))
      .toBe(`npx jobmesh start --data-dir '/tmp/my net'\\''s dir/peer-1' --listen /ip4/127.0.0.1/tcp/4002 --rpc http://127.0.0.1:40000 ` +
        `--key-file '/tmp/my net'\\''s dir/peer-1/wallet.key' --vram 16 --bootstrap ${peer2}`)
    // its port not known (no address of it on that host): any port, as the devnet started it
    expect(restartCommand({ dataDir: '/d/peer-1', args: ['--listen', '/ip4/127.0.0.1/tcp/0'], addresses: ['/ip4/10.0.0.1/tcp/4002'] }, []))
      .toBe('npx jobmesh start --data-dir /d/peer-1 --listen /ip4/127.0.0.1/tcp/0')
    // a port it was given (restartPeer's: its old one) and a WebSocket listen address on any port: each its own
    expect(restartCommand({ dataDir: '/d/peer-1', args: ['--listen', '/ip4/127.0.0.1/tcp/4002', '--listen', '/ip4/0.0.0.0/tcp/0/ws'], addresses }, []))
      .toBe('npx jobmesh start --data-dir /d/peer-1 --listen /ip4/127.0.0.1/tcp/4002 --listen /ip4/0.0.0.0/tcp/4006/ws')
    // nobody left to join through: no --bootstrap
    expect(restartCommand({ dataDir: '/d/peer-0', args: ['--vram', '16'], addresses: [] }, [])).toBe('npx jobmesh start --data-dir /d/peer-0 --vram 16')
  })
})

describe('jobmesh devnet refuses options it cannot honour before it starts anything', () => {
  const devnet = async (args: string[]): Promise<{ code: number, stdout: string, stderr: string }> =>
    await promisify(execFile)(process.execPath, [CLI_BIN, 'devnet', ...args], { timeout: 20_000 })
      .then(({ stdout, stderr }) => ({ code: 0, stdout, stderr }), (err: { code: number, stdout: string, stderr: string }) => err)

  it('a stake that is not an amount of ETH, and a single peer', async () => {
    const stake = await devnet(['--stake', 'abc'])
    expect(stake.code).toBe(2)
    expect(stake.stderr).toContain('--stake <eth>\' argument \'abc\' is invalid. expected an amount of ETH such as 0.1 (a decimal number, no sign or exponent), got "abc"')
    // a wei fraction is named as such, not as a malformed amount
    const fraction = await devnet(['--stake', '0.0000000000000000001'])
    expect(fraction.code).toBe(2)
    expect(fraction.stderr).toContain('"0.0000000000000000001" has more than 18 decimals: 1 wei is 0.000000000000000001 ETH')
    const one = await devnet(['--peers', '1'])
    expect(one.code).toBe(2)
    expect(one.stderr).toContain('--peers <n>\' argument \'1\' is invalid. expected a whole number from 2 to 32 (each peer is a process of its own on this machine), got "1"')
    // and not a process per peer beyond what one machine runs (99999 waited for anvil's 100 003 accounts, then failed)
    const many = await devnet(['--peers', '99999'])
    expect(many.code).toBe(2)
    expect(many.stderr).toContain('--peers <n>\' argument \'99999\' is invalid. expected a whole number from 2 to 32')
    for (const out of [stake, fraction, one, many]) expect(out.stdout).not.toContain('starting devnet')
  })

  describe('with a temp dir', () => {
    let dir = ''
    beforeEach(async () => { dir = await mkdtemp(join(tmpdir(), 'jobmesh-devnet-usage-')) })
    afterEach(async () => { await rm(dir, { recursive: true, force: true }) })

    it('--peers that is not a number says the real minimum; --block-time 0 is refused as a usage error, not by anvil', async () => {
      const net = join(dir, 'net')
      // in digits: Number() would take 1e1 and 0x10 as 10 and 16
      for (const value of ['x', '1e1', '0x10']) {
        const peers = await devnet(['--peers', value, '--dir', net])
        expect(peers.code).toBe(2)
        expect(peers.stderr).toContain(`--peers <n>' argument '${value}' is invalid. expected a whole number from 2 to 32 (each peer is a process of its own on this machine), got "${value}"`)
      }
      for (const value of ['0', '-1', 'soon', '1e0']) {
        const block = await devnet(['--block-time', value, '--dir', net])
        expect(block.code, block.stderr).toBe(2)
        expect(block.stderr).toContain(`--block-time <s>' argument '${value}' is invalid. expected a number of seconds > 0 such as 1, 2 or 0.5, got "${value}"`)
        expect(block.stdout).not.toContain('starting devnet')
      }
      expect(await readdir(dir)).toEqual([])
    })

    it('a stake below the minimum of the registry it deploys, before the chain starts', async () => {
      const net = join(dir, 'net')
      for (const stake of ['0', '0.009']) {
        const low = await devnet(['--stake', stake, '--dir', net])
        expect(low.code, low.stderr).toBe(2)
        expect(low.stderr).toContain(`--stake: ${stake} ETH is below the registry's minimum stake of 0.01 ETH`)
        expect(low.stdout).not.toContain('starting devnet')
      }
      // nothing was made: no chain, no peer data dirs
      expect(await readdir(dir)).toEqual([])
    })

    it('a --dir that is a file (or below one) is a usage error, not EEXIST', async () => {
      const file = join(dir, 'a-file')
      await writeFile(file, 'not a dir\n')
      const onFile = await devnet(['--dir', file])
      expect(onFile.code, onFile.stderr).toBe(2)
      expect(onFile.stderr).toContain(`error: --dir ${file} is a file, not a directory`)
      expect(onFile.stdout).not.toContain('starting devnet')
      const below = await devnet(['--dir', join(file, 'net')])
      expect(below.code, below.stderr).toBe(2)
      expect(below.stderr).toContain(`error: --dir ${join(file, 'net')}: ${file} is a file, not a directory`)
    })
  })
})
