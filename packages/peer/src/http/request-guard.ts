import { isIP } from 'node:net'
import type { IncomingHttpHeaders } from 'node:http'

/**
 * Headers of every answer: the page loads only its own files (its styles are set through the CSSOM, which a CSP
 * allows), is framed by nobody, and no response is read as another type than it says.
 */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'content-security-policy': "default-src 'self'; img-src 'self' data:; frame-ancestors 'none'; base-uri 'none'; form-action 'none'",
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer'
}

/** Whether a listening host is a loopback one: then only this machine's browsers and scrapers are meant. */
export function isLoopback (host: string): boolean {
  if (host === 'localhost' || host === '::1') return true
  return isIP(host) === 4 && host.startsWith('127.')
}

/** The host part of a Host header (`[::1]:8080` -> `::1`), lower case. */
function hostname (header: string): string {
  const h = header.trim().toLowerCase()
  if (h.startsWith('[')) return h.slice(1, h.indexOf(']'))
  const colon = h.lastIndexOf(':')
  return colon < 0 ? h : h.slice(0, colon)
}

/**
 * Why a request is refused, or undefined. A listener on loopback answers only requests whose Host names a loopback
 * host: a page on another site that points its own name at 127.0.0.1 (DNS rebinding) would otherwise read this
 * peer's state from the operator's browser. And the API (everything but the page's own files) is not for another
 * site's scripts: a browser says where a request comes from (`Sec-Fetch-Site`); a scraper or `curl` sends none.
 */
export function refusal (headers: IncomingHttpHeaders, listening: string, path: string): string | undefined {
  if (isLoopback(listening) && !isLoopback(hostname(headers.host ?? ''))) return 'this listener answers only on a loopback host name'
  const site = headers['sec-fetch-site']
  const page = path === '/' || path.endsWith('.js') || path.endsWith('.css') || path.endsWith('.html')
  if (!page && (site === 'cross-site' || site === 'same-site')) return 'not for other sites\' pages'
  return undefined
}
