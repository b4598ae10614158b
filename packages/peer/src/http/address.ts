import { DEFAULT_HTTP_HOST } from './constants.js'
import { InvalidHttpAddressError } from './errors.js'

export interface HttpAddress {
  host: string
  /** 0 = chosen by the OS. */
  port: number
}

/** Parses `127.0.0.1:8080`, `[::1]:0`, `localhost:0` or a port alone (`8080` or `:8080`, on 127.0.0.1). */
export function parseHttpAddress (value: string): HttpAddress {
  const text = value.trim()
  const bad = (why: string): InvalidHttpAddressError =>
    new InvalidHttpAddressError(`"${value}" is not host:port (${why}; example: 127.0.0.1:8080, or 127.0.0.1:0 for any free port)`)
  let host = DEFAULT_HTTP_HOST
  // `8080` and `:8080` are the default host's port
  let portText = text.startsWith(':') ? text.slice(1) : text
  if (!/^\d+$/.test(portText)) {
    const colon = text.lastIndexOf(':')
    // `:x` names a port, a bad one
    if (colon <= 0) throw bad(colon === 0 ? 'bad port' : 'no port')
    host = text.slice(0, colon)
    portText = text.slice(colon + 1)
    if (host.startsWith('[') && host.endsWith(']')) host = host.slice(1, -1)
    if (host === '' || /[\s/[\]]/.test(host)) throw bad('bad host')
  }
  if (!/^\d{1,5}$/.test(portText) || Number(portText) > 65535) throw bad('bad port')
  return { host, port: Number(portText) }
}

/** `http://host:port/`, with IPv6 hosts in brackets. */
export function httpUrl (host: string, port: number): string {
  return `http://${host.includes(':') ? `[${host}]` : host}:${port}/`
}
