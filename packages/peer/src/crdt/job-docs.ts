import { docsOfJob } from './names.js'
import type { DocStore } from './doc-store-types.js'

/**
 * Closes every doc of one job that `docs` holds open (every round's job doc and MacroJob docs): flushed, topics left,
 * still in the datastore and served from there. Resolves with the names closed.
 */
export async function closeJobDocs (docs: Pick<DocStore, 'names' | 'close'>, jobId: string): Promise<string[]> {
  const names = docsOfJob(docs.names(), jobId)
  await Promise.all(names.map(async name => { await docs.close(name) }))
  return names
}
