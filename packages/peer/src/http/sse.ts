import type { ServerResponse } from 'node:http'

/** The open Server-Sent-Events streams of the dashboard. */
export class SseClients {
  private readonly clients = new Set<ServerResponse>()

  get size (): number {
    return this.clients.size
  }

  /** Takes over a response as an event stream; `onClose` runs when the browser goes away. */
  add (res: ServerResponse, onClose?: () => void): void {
    res.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
      connection: 'keep-alive'
    })
    res.write('retry: 2000\n\n')
    this.clients.add(res)
    res.on('close', () => {
      this.clients.delete(res)
      onClose?.()
    })
  }

  /** Sends one event to every client (`data` is JSON-encoded on one line). */
  send (event: string, data: string): void {
    for (const res of this.clients) res.write(`event: ${event}\ndata: ${data}\n\n`)
  }

  /** Sends to one client. */
  sendTo (res: ServerResponse, event: string, data: string): void {
    res.write(`event: ${event}\ndata: ${data}\n\n`)
  }

  closeAll (): void {
    for (const res of this.clients) res.end()
    this.clients.clear()
  }
}
