import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it } from 'vitest'
import type { Server, Socket } from 'node:net'

// the built module, as both CLIs' entry points load it (`npm test` builds first)
const COMMAND_END = fileURLToPath(new URL('../../dist/cli/command-end.js', import.meta.url))

let server: Server | undefined
const sockets: Socket[] = []
afterEach(async () => {
  sockets.splice(0).forEach(s => { s.destroy() })
  server?.close()
  server = undefined
})

/** A process that prints an error, leaves a connection open to a server that never answers, and ends its command with 1. */
async function failedCommandWithOpenSocket (port: number): Promise<{ code: number | null, stderr: string }> {
  const script = `import { connect } from 'node:net'
import { endCommand } from ${JSON.stringify(COMMAND_END)}
connect(${port}, '127.0.0.1').on('connect', () => { process.stderr.write('error: no answer\\n'); endCommand(1) })`
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.setEncoding('utf8').on('data', (d: string) => { stderr += d })
  const timer = setTimeout(() => { child.kill('SIGKILL') }, 20_000)
  const [code] = await once(child, 'close') as [number | null]
  clearTimeout(timer)
  return { code, stderr }
}

describe('endCommand: a CLI ends once its command has', () => {
  it('exits with the command\'s code though a request it abandoned still holds a socket open', async () => {
    // an RPC endpoint that accepts the connection and never answers
    server = createServer(socket => { sockets.push(socket) })
    server.listen(0, '127.0.0.1')
    await once(server, 'listening')
    const { port } = server.address() as { port: number }
    const ended = await failedCommandWithOpenSocket(port)
    expect(ended.stderr).toBe('error: no answer\n')
    // not killed by the bound above (code null): it exited by itself with the command's code, its connection open
    // until then (the server never closed it)
    expect(ended.code).toBe(1)
    expect(sockets).toHaveLength(1)
  })
})
