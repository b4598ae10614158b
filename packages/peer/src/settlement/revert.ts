/** The decoded custom error of a reverted call (`ChainRevertError.errorName`), else undefined. */
export function revertName (err: unknown): string | undefined {
  return (err as { errorName?: string } | undefined)?.errorName
}
