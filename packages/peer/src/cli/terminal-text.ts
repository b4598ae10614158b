/**
 * Text from the network (job specs, profiles, failure reasons, a job's own abort messages, peers' refusals) printed
 * for a person goes through here first: a control character could otherwise drive the terminal (ESC sequences that
 * clear the screen, retitle the window, write the clipboard with OSC 52, hide text) or, with a line break, forge a
 * line of output. Both CLIs apply it where they print (`@jobmesh/peer/terminal-text`); JSON output needs nothing
 * (JSON escapes control characters).
 */

/**
 * C0 controls, DEL, C1 controls, and the bidirectional overrides and isolates (which reorder what a line shows),
 * the line break `\n` apart: it is handled by `lines`.
 */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const UNSAFE = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]/g

function escaped (c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/**
 * `text` with every control character shown as a visible `\uXXXX` escape, line breaks too (a field, a table cell,
 * one event's line); with `lines`, line breaks are kept (a whole block the CLI formatted, an error's message of
 * several lines).
 */
export function terminalSafe (text: string, options: { lines?: boolean } = {}): string {
  const safe = text.replace(UNSAFE, escaped)
  return options.lines === true ? safe : safe.replace(/\n/g, escaped)
}
