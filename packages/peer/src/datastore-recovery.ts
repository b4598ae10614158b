/**
 * What an operator does with a damaged datastore (the data dir's `datastore` folder), and what that costs: said where
 * it fails to open (`node/storage.ts`) and where it fails later (the CLI's error lines). A file of its own: the CLI
 * reads it without loading the node.
 */
export const DATASTORE_RECOVERY = 'restore datastore from a backup, or move it aside and start again (the node keeps its ' +
  'identity and blocks, and loses what the datastore held: CRDT docs, and the settlement journal of rounds under way)'
