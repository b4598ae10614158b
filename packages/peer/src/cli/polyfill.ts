// Node 20 lacks Promise.withResolvers, which libp2p 3 and helia 7 use. Entry points (the jobmesh and jobmesh-dapp CLIs,
// the demo, the test setup) load this first, as `@jobmesh/peer/polyfill`; library modules never polyfill.
if (typeof (Promise as { withResolvers?: unknown }).withResolvers !== 'function') {
  Object.defineProperty(Promise, 'withResolvers', {
    configurable: true,
    writable: true,
    value: function withResolvers<T> (): PromiseWithResolvers<T> {
      let resolve!: (value: T | PromiseLike<T>) => void
      let reject!: (reason?: unknown) => void
      const promise = new Promise<T>((res, rej) => { resolve = res; reject = rej })
      return { promise, resolve, reject }
    }
  })
}

interface PromiseWithResolvers<T> {
  promise: Promise<T>
  resolve: (value: T | PromiseLike<T>) => void
  reject: (reason?: unknown) => void
}

export {}
