/** The processor was stopped while an operation waited. */
export class ProcessorStoppedError extends Error {
  static override readonly name = 'ProcessorStoppedError'
  override readonly name = 'ProcessorStoppedError'
}

