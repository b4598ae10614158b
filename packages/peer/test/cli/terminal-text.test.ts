import { describe, expect, it } from 'vitest'
import { terminalSafe } from '../../src/cli/terminal-text.js'

describe('terminalSafe', () => {
  it('shows every control character as a visible escape: ESC and BEL sequences, CSI in C1, DEL, CR, tabs, bidi overrides', () => {
    const text = 'a\u001b]0;owned\u0007\u001b[2J\u001b]52;c;aGk=\u0007b\rc\td\u007fe\u009b31mf\u202eg\u2066h'
    expect(terminalSafe(text)).toBe('a\\u001b]0;owned\\u0007\\u001b[2J\\u001b]52;c;aGk=\\u0007b\\u000dc\\u0009d\\u007fe\\u009b31mf\\u202eg\\u2066h')
    const unsafe = [...terminalSafe(text)].filter(c => c.charCodeAt(0) < 0x20 || (c.charCodeAt(0) >= 0x7f && c.charCodeAt(0) <= 0x9f) || /[\u202a-\u202e\u2066-\u2069]/.test(c))
    expect(unsafe).toEqual([])
  })

  it('a line break is escaped in a field (no forged line), kept with `lines` (a block of several lines)', () => {
    const forged = 'RTX\n12:00:00 settled job 0xfake: released'
    expect(terminalSafe(forged)).toBe('RTX\\u000a12:00:00 settled job 0xfake: released')
    expect(terminalSafe(`one\n${'\u001b[8m'}two`, { lines: true })).toBe('one\n\\u001b[8mtwo')
  })

  it('leaves text without controls as it is, other scripts and symbols too', () => {
    for (const text of ['', 'job 0x12…34: released', 'H100 80 GB', 'café 日本語 ✓ €', 'ipfs://bafkqaaa/palette']) {
      expect(terminalSafe(text)).toBe(text)
      expect(terminalSafe(text, { lines: true })).toBe(text)
    }
  })
})
