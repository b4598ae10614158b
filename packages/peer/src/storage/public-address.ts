import { lookup as dnsLookup } from 'node:dns'
import { BlockList, isIP } from 'node:net'
import type { LookupAddress, LookupOptions } from 'node:dns'

/**
 * Addresses a job's `https://` content may not be fetched from: this machine, private and shared networks,
 * link-local (cloud metadata services), multicast and reserved ranges, IPv4-mapped forms of them. A job names its
 * URIs; every peer that runs it fetches them, and what comes back becomes a MicroJob's input whose output goes to
 * the job's creator: a request into the peers' own networks (docs/architecture.md, Known gaps) is refused.
 */
const NOT_PUBLIC = new BlockList()
for (const [net, prefix] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16],
  ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 3]] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv4')
}
// (IPv4-mapped addresses are checked as their IPv4 below: the BlockList would match every IPv4 against ::ffff:0:0/96)
for (const [net, prefix] of [['::', 127], ['64:ff9b::', 96], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) {
  NOT_PUBLIC.addSubnet(net, prefix, 'ipv6')
}

/** Whether `ip` (a literal) is an address a job's content may come from; an IPv4-mapped IPv6 address as its IPv4. */
export function isPublicAddress (ip: string): boolean {
  const family = isIP(ip)
  if (family === 0) return false
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)
  if (mapped != null) return isPublicAddress(mapped[1])
  // the same written in hex (::ffff:7f00:1): not told apart here, refused
  if (/^::ffff:/i.test(ip)) return false
  return !NOT_PUBLIC.check(ip, family === 4 ? 'ipv4' : 'ipv6')
}

type LookupCallback = (err: NodeJS.ErrnoException | null, address: string | LookupAddress[], family?: number) => void

/**
 * `dns.lookup` for a socket that may reach public addresses only: a name that resolves to any other address fails
 * with `EJOBMESH_NOT_PUBLIC` (no connection is made). Both forms of the callback (`all` or not) as `net.connect` asks.
 */
export function publicLookup (hostname: string, options: LookupOptions, callback: LookupCallback): void {
  dnsLookup(hostname, { ...options, all: true }, (err, addresses) => {
    if (err != null) {
      callback(err, options.all === true ? [] : '', undefined)
      return
    }
    const refused = addresses.find(a => !isPublicAddress(a.address))
    if (refused != null || addresses.length === 0) {
      const e: NodeJS.ErrnoException = new Error(`${hostname} resolves to ${refused?.address ?? 'nothing'}, not a public address`)
      e.code = 'EJOBMESH_NOT_PUBLIC'
      callback(e, options.all === true ? [] : '', undefined)
      return
    }
    if (options.all === true) callback(null, addresses)
    else callback(null, addresses[0].address, addresses[0].family)
  })
}
