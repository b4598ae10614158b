/** Errors of the job records (announcements, profiles). One class per condition; branch on `err.name`. */

/** A job announcement could not be built (bad spec or id). */
export class InvalidAnnouncementError extends Error {
  static override readonly name = 'InvalidAnnouncementError'
  override readonly name = 'InvalidAnnouncementError'
}

/** A peer profile is malformed. */
export class InvalidProfileError extends Error {
  static override readonly name = 'InvalidProfileError'
  override name = 'InvalidProfileError'
}
