/** Errors of model holdings. One class per condition; branch on `err.name`. */

/**
 * The registry records at most `MAX_MODEL_RECORDS` models per node and the models kept with `--model` fill them: a
 * model that is not among them cannot be recorded as held by this node.
 */
export class TooManyModelsError extends Error {
  static override readonly name = 'TooManyModelsError'
  override name = 'TooManyModelsError'
}
