import { describe, expect, it } from 'vitest'
import { InvalidHttpAddressError, httpUrl, parseHttpAddress } from '../../src/http/index.js'

describe('--http address', () => {
  it('parses host:port, [v6]:port and a port alone (8080, :8080)', () => {
    expect(parseHttpAddress('127.0.0.1:8080')).toEqual({ host: '127.0.0.1', port: 8080 })
    expect(parseHttpAddress('[::1]:0')).toEqual({ host: '::1', port: 0 })
    expect(parseHttpAddress('localhost:9')).toEqual({ host: 'localhost', port: 9 })
    expect(parseHttpAddress('8080')).toEqual({ host: '127.0.0.1', port: 8080 })
    // the docs' `:0`: the port alone, as with a bare port
    expect(parseHttpAddress(':0')).toEqual({ host: '127.0.0.1', port: 0 })
    expect(parseHttpAddress(':8080')).toEqual({ host: '127.0.0.1', port: 8080 })
    expect(httpUrl('::1', 80)).toBe('http://[::1]:80/')
  })

  it('rejects what is not host:port with a typed error', () => {
    for (const bad of ['', 'localhost', ':', ':99999', '127.0.0.1:99999', '127.0.0.1:http', 'a b:1']) {
      expect(() => parseHttpAddress(bad)).toThrow(InvalidHttpAddressError)
    }
    // each says what is wrong: a port given but bad is a bad port (`:-1` said "no port")
    for (const [bad, why] of [[':-1', 'bad port'], [':abc', 'bad port'], ['127.0.0.1:-1', 'bad port'], ['localhost', 'no port'], ['a b:1', 'bad host']]) {
      expect(() => parseHttpAddress(bad)).toThrow(`"${bad}" is not host:port (${why}; `)
    }
  })
})
