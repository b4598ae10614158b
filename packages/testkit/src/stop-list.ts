/** Anything a test starts and must stop: a peer, a chain, a node. */
export interface Stoppable { stop(): Promise<void> }

/** What a test file started, to stop after each test (`afterEach(list.stopAll)`), the newest first. */
export interface StopList {
  /** Records `started` and answers it: `const peer = running.add(await chainPeer(chain))`. */
  add<T extends Stoppable>(started: T): T
  /** Stops all that was added, the newest first, each even when one before it failed; throws the first failure. */
  stopAll(): Promise<void>
}

/** An empty {@link StopList}. */
export function stopList (): StopList {
  const held: Stoppable[] = []
  return {
    add (started) {
      held.push(started)
      return started
    },
    async stopAll () {
      let failure: unknown
      for (const s of held.splice(0).reverse()) {
        try {
          await s.stop()
        } catch (err) {
          failure ??= err
        }
      }
      if (failure !== undefined) throw failure
    }
  }
}
