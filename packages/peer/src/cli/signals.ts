/** Resolves on SIGINT/SIGTERM, or (for devnet children) when the parent's pipe on stdin closes. */
export async function untilSignal (exitWithParent = false): Promise<string> {
  return await new Promise(resolve => {
    const done = (reason: string): void => {
      process.off('SIGINT', done)
      process.off('SIGTERM', done)
      process.stdin.off('end', onEnd)
      if (exitWithParent) {
        process.stdin.destroy()
      }
      resolve(reason)
    }
    const onEnd = (): void => { done('parent gone') }
    process.on('SIGINT', done)
    process.on('SIGTERM', done)
    if (exitWithParent) {
      process.stdin.on('end', onEnd)
      process.stdin.resume()
    }
  })
}
