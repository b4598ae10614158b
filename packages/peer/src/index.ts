/**
 * @packageDocumentation
 *
 * The jobmesh node. The protocol core (ids, slicing, Merkle trees, pricing, weights, QoS, task queue,
 * signed records) is pure and re-exported by `@jobmesh/dapp-sdk`.
 */
export * from './protocol/index.js'
