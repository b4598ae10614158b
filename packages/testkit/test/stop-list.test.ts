import { describe, expect, it } from 'vitest'
import { stopList } from '../src/index.js'

describe('stopList', () => {
  it('stops the newest first, each once, every one even after a failure, and throws the first failure', async () => {
    const stopped: string[] = []
    const thing = (name: string, fails = false): { stop(): Promise<void> } => ({
      async stop () {
        stopped.push(name)
        if (fails) throw new Error(`${name} failed to stop`)
      }
    })
    const list = stopList()
    const chain = list.add(thing('chain'))
    list.add(thing('peer', true))
    list.add(thing('client', true))
    expect(chain).toBeDefined()
    await expect(list.stopAll()).rejects.toThrow('client failed to stop')
    expect(stopped).toEqual(['client', 'peer', 'chain'])
    await list.stopAll()
    expect(stopped).toHaveLength(3)
  })
})
