import { decodeWordCounts, encodeWordCounts } from './wordcount-table.js'

/** Merges word-count tables (MicroJob outputs) into one table: counts of the same word are added. */
export function mergeWordCounts (tables: Uint8Array[]): Uint8Array {
  const counts = new Map<string, number>()
  for (const table of tables) {
    for (const { word, count } of decodeWordCounts(table)) {
      counts.set(word, (counts.get(word) ?? 0) + count)
    }
  }
  return encodeWordCounts([...counts].map(([word, count]) => ({ word, count })))
}
