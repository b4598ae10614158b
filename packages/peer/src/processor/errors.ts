/** The processor was stopped while an operation waited. */
export class ProcessorStoppedError extends Error {
  static override readonly name = 'ProcessorStoppedError'
  override readonly name = 'ProcessorStoppedError'
}

/** A job announcement could not be built (bad spec or id). */
export class InvalidAnnouncementError extends Error {
  static override readonly name = 'InvalidAnnouncementError'
  override readonly name = 'InvalidAnnouncementError'
}
