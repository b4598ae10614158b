import { createUnsafe } from 'multiformats/block'
import { collect } from './collect.js'
import type { GraphNode, GraphWalkerComponents, GraphWalkerFactory, WalkOptions } from '@helia/interface'
import type { CID } from 'multiformats/cid'

interface Step {
  cid: CID
  depth: number
  path: CID[]
}

/**
 * The walk a pin makes (`pins.add(cid, { walker: pinWalker() })`): depth first, one block at a time, in link order,
 * as helia's default walker, but as a plain generator. helia's walker runs its blocks through a job queue whose
 * failures it throws into its own generator; when the pin's signal aborts while the pin's caller is busy with a block,
 * that throw is a promise nobody handles (the process ends on it) and the walk then ends as if it were complete, so
 * the pin would be recorded over part of a DAG. Here an abort, or any failure to read a block, is thrown to the pin,
 * and nothing outlives it. With no depth bound each block is walked once (a DAG that links one block many times is
 * walked in its size, not its paths: the pin counts each block once anyway).
 */
export function pinWalker (): GraphWalkerFactory {
  return (components) => ({ walk: <T>(cid: CID, options?: WalkOptions<T>) => walkDag<T>(components, cid, options) })
}

async function * walkDag<T> (components: GraphWalkerComponents, root: CID, options: WalkOptions<T> = {}): AsyncGenerator<GraphNode<T>> {
  const maxDepth = options.depth ?? Infinity
  const seen = new Set<string>()
  const stack: Step[] = [{ cid: root, depth: 0, path: [root] }]
  for (let step = stack.pop(); step !== undefined; step = stack.pop()) {
    if (maxDepth === Infinity) {
      const key = step.cid.toString()
      if (seen.has(key)) continue
      seen.add(key)
    }
    options.signal?.throwIfAborted()
    const bytes = await collect(components.blockstore.get(step.cid, options), Infinity, `block ${step.cid.toString()}`)
    const block = createUnsafe<T, number, number, 0 | 1>({ cid: step.cid, bytes, codec: await components.getCodec(step.cid.code) })
    if (step.depth < maxDepth) stack.push(...children(block, step, options).reverse())
    yield { block, depth: step.depth, path: step.path }
  }
}

function children<T> (block: GraphNode<T>['block'], parent: Step, options: WalkOptions<T>): Step[] {
  const out: Step[] = []
  for (const [, link] of block.links()) {
    if (options.includeChild?.(link, block) === false) continue
    out.push({ cid: link, depth: parent.depth + 1, path: [...parent.path, link] })
  }
  return out
}
