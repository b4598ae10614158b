import type * as Y from 'yjs'

/** The doc store as the job records use it (`createDocStore(node)` fits). */
export interface JobsDocs {
  open(name: string, options?: { signal?: AbortSignal }): Promise<Y.Doc>
}
