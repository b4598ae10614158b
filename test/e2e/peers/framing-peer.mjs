#!/usr/bin/env node
// A cheating peer (cheating-peer.mjs) whose signed peer profile names another wallet than its own, for the
// end-to-end test of payee binding (test code only). Usage: node framing-peer.mjs <address> <cheating-peer args...>
// A profile is the peer's own word: the peer signs whatever address it likes. Here the profile payload (the JSON that
// encodeProfile signs: address, gpuModel, vramGb) names <address>.
const named = process.argv[2]
process.argv.splice(2, 1)
const stringify = JSON.stringify
JSON.stringify = function (value, ...rest) {
  const profile = value != null && typeof value === 'object' && !Array.isArray(value) && Object.keys(value).join(',') === 'address,gpuModel,vramGb'
  return stringify.call(this, profile ? { ...value, address: named } : value, ...rest)
}
await import(new URL('./cheating-peer.mjs', import.meta.url).href)
