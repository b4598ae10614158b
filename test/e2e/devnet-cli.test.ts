import { once } from 'node:events'
import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { multiaddr } from '@multiformats/multiaddr'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI_BIN } from '@jobmesh/peer'
import { createNode } from '@jobmesh/peer/node'
import { waitFor } from '@jobmesh/testkit'
import { startCli } from './cli.js'
import { peerStatus } from './helpers.js'
import type { CliProcess } from './cli.js'
import type { JobmeshNode } from '@jobmesh/peer/node'

describe('jobmesh devnet, one more peer started as its output says, and its chain killed', () => {
  const running: CliProcess[] = []
  let probe: JobmeshNode | undefined
  let dir = ''

  afterEach(async () => {
    await probe?.stop()
    probe = undefined
    for (const p of running.splice(0).reverse()) {
      if (p.child.exitCode === null && p.child.signalCode === null) p.child.kill('SIGINT')
      await p.exited
    }
    await rm(dir, { recursive: true, force: true })
  })

  it('the printed `jobmesh start` line, with its spare funded key, joins the network and registers; Ctrl-C stops it; a killed devnet peer starts again with the line printed for it, on its old port (the printed bootstrap reaches it again); the devnet stops when its chain is killed', async () => {
    dir = await mkdtemp(join(tmpdir(), 'jobmesh-e2e-devnet-cli-'))
    // no JOBMESH_* from the test's environment: only what the command line says
    const clean = { JOBMESH_RPC_URL: '', JOBMESH_DEPLOYMENT: '', JOBMESH_BOOTSTRAP: '', JOBMESH_PRIVATE_KEY: '' }
    const devnet = startCli(['devnet', '--peers', '2', '--no-http', '--dir', join(dir, 'net')], clean, CLI_BIN)
    running.push(devnet)
    await devnet.line(/^running \(Ctrl-C to stop\)/, 120_000)
    // peer-0's address: JOBMESH_BOOTSTRAP, and the --bootstrap of the line that connects another peer
    const bootstrap = devnet.stdout.find(l => l.startsWith('bootstrap '))?.split(/\s+/)[1] ?? ''
    expect(bootstrap, devnet.stdout.join('\n')).toMatch(/^\/ip4\/127\.0\.0\.1\/tcp\/[1-9]\d*\/p2p\/12D3KooW/)
    const printed = devnet.stdout.find(l => l.startsWith('  npx jobmesh start --data-dir <dir>') && l.includes('--bootstrap'))
    expect(printed, devnet.stdout.join('\n')).toBeDefined()
    const args = (printed ?? '').trim().split(/\s+/).slice(2).map(a => a === '<dir>' ? join(dir, 'extra') : a)
    // a peer like the devnet's own (16 GB; the line said 8): the jobs made for the devnet fit it
    expect(args[args.indexOf('--vram') + 1]).toBe('16')
    const keyFile = args[args.indexOf('--key-file') + 1]
    expect(await readFile(keyFile, 'utf8')).toMatch(/^0x[0-9a-f]{64}\n$/)
    // 2 peers: a job with the default k = 3 needs 4 active nodes, so two spare keys, one per missing peer, and a note
    const second = join(dir, 'net', 'spare-wallet-2.key')
    expect(devnet.stdout).toContain(`  ${keyFile}, ${second}: keys of funded anvil accounts no peer uses, one for each extra peer`)
    expect(devnet.stdout).toContain('  note: a job with the default 3 verifiers needs 4 active nodes (its submitter and 3 others); this devnet has 2: ' +
      'start 2 more with the line above, one spare key each, before submitting (jobmesh-dapp submit refuses it until then)')
    expect(await readFile(second, 'utf8')).toMatch(/^0x[0-9a-f]{64}\n$/)
    expect(await readFile(second, 'utf8')).not.toBe(await readFile(keyFile, 'utf8'))

    const peer = startCli(args, clean, CLI_BIN)
    running.push(peer)
    await peer.line(/^ready/, 90_000)
    expect(peer.stdout.some(l => /^wallet +0x[0-9a-fA-F]{40} \(registered now with a stake of 0\.1 ETH\)/.test(l)), peer.stdout.join('\n')).toBe(true)
    // it is connected to the devnet (its bootstrap at least)
    await waitFor(async () => (await peerStatus(join(dir, 'extra'))).peers.length >= 1, { timeoutMs: 30_000, what: 'the extra peer to connect to the devnet', intervalMs: 500 })

    // a devnet peer killed (no clean stop), the one whose address the devnet printed: the devnet names it, and goes on
    const victim = await peerStatus(join(dir, 'net', 'peer-0'))
    expect(victim.pid).toBeGreaterThan(0)
    expect(bootstrap.endsWith(`/p2p/${victim.peerId}`)).toBe(true)
    process.kill(victim.pid ?? 0, 'SIGKILL')
    expect(await devnet.line(/^peer-0 exited /, 30_000)).toBe(`peer-0 exited (killed by a signal): the other peers go on; its data is in ${join(dir, 'net', 'peer-0')}`)
    expect((await peerStatus(join(dir, 'net', 'peer-1'))).peerId).toMatch(/^12D3KooW/)
    // and how to start it again: its own data dir and key (the extra peer's line, with the spare key, was refused
    // for it: its PeerId is its own wallet's), joining through a peer still running, on the port it listened on
    const again = await devnet.line(/^ {2}to start it again /, 10_000)
    // and what it printed last (killed, it had no stop to print: its ready lines)
    expect(await devnet.line(/^ {2}its last lines:$/, 10_000)).toBe('  its last lines:')
    const restart = again.replace(/^ {2}to start it again \(its own key and data dir\): /, '').split(' ')
    expect(restart.slice(0, 5)).toEqual(['npx', 'jobmesh', 'start', '--data-dir', join(dir, 'net', 'peer-0')])
    expect(restart[restart.indexOf('--key-file') + 1]).toBe(join(dir, 'net', 'peer-0', 'wallet.key'))
    // its old port: else the printed bootstrap reached nobody (jobmesh-dapp submit: NoPeerConnectedError)
    expect(restart[restart.indexOf('--listen') + 1]).toBe(bootstrap.replace(/\/p2p\/[^/]+$/, ''))
    expect(restart[restart.indexOf('--bootstrap') + 1]).not.toBe(bootstrap)
    const restarted = startCli(restart.slice(2), clean, CLI_BIN)
    running.push(restarted)
    await restarted.line(/^ready/, 90_000)
    expect(restarted.stderr).toEqual([])
    await waitFor(async () => (await peerStatus(join(dir, 'net', 'peer-0'))).peers.length >= 1, { timeoutMs: 30_000, what: 'the restarted peer to connect', intervalMs: 500 })
    expect((await peerStatus(join(dir, 'net', 'peer-0'))).peerId).toBe(victim.peerId)
    // the address the devnet printed reaches it again: a node dialling it, as jobmesh-dapp does, meets that peer
    probe = await createNode({ listen: ['/ip4/127.0.0.1/tcp/0'], role: 'client' })
    const connection = await probe.libp2p.dial(multiaddr(bootstrap), { signal: AbortSignal.timeout(10_000) })
    expect(connection.remotePeer.toString()).toBe(victim.peerId)
    restarted.child.kill('SIGINT')
    expect(await restarted.exited).toBe(0)

    // Ctrl-C: a clean stop
    peer.child.kill('SIGINT')
    expect(await peer.exited).toBe(0)

    // the chain killed under the running devnet: it says so, stops its peers and exits 1 (it went on silently)
    const chain = devnet.stdout.find(l => l.startsWith('chain '))
    const anvilPid = Number(/anvil pid (\d+)\)/.exec(chain ?? '')?.[1])
    expect(anvilPid, chain).toBeGreaterThan(0)
    // 'close': its output read to the end, not only the process gone
    const closed = once(devnet.child, 'close', { signal: AbortSignal.timeout(60_000) })
    process.kill(anvilPid, 'SIGKILL')
    expect((await closed)[0]).toBe(1)
    expect(devnet.stderr).toContain(`the devnet's chain (anvil, pid ${anvilPid}) was killed (SIGKILL): stopping the devnet`)
    expect(devnet.stderr.some(l => l.startsWith("error: the devnet's chain was killed (SIGKILL) while the devnet ran; start the devnet again")), devnet.stderr.join('\n')).toBe(true)
    expect(devnet.stdout.slice(-2)).toEqual(['stopping devnet...', 'stopped'])
    await expect(peerStatus(join(dir, 'net', 'peer-0'))).rejects.toThrow()
  }, 240_000)
})
