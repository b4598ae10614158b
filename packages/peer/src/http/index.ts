/**
 * @packageDocumentation
 *
 * The peer's HTTP listener (`jobmesh start --http 127.0.0.1:<port>`, off by default): the live dashboard (plain ES
 * modules, state pushed as Server-Sent Events), job stories and Prometheus `/metrics`.
 */
export { startHttpServer } from './server.js'
export { listenHttp } from './listen.js'
export type { HttpServer, HttpServerComponents, HttpServerInit } from './server.js'
export { parseHttpAddress, httpUrl } from './address.js'
export type { HttpAddress } from './address.js'
export { HttpListenError, InvalidHttpAddressError } from './errors.js'
export { DASHBOARD_DIR, DASHBOARD_FILES } from './assets.js'
export * from './constants.js'
