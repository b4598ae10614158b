import { terminalSafe } from './terminal-text.js'

/** Renders rows as an aligned plain-text table (the CLI's only table format); a cell is one line, without controls. */
export function table (headers: string[], rows: Array<Array<string | number>>): string {
  const cells = [headers, ...rows.map(r => r.map(c => terminalSafe(String(c))))]
  const widths = headers.map((_, i) => Math.max(...cells.map(r => (r[i] ?? '').length)))
  const line = (r: string[]): string => r.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd()
  return [line(cells[0]), line(widths.map(w => '-'.repeat(w))), ...cells.slice(1).map(line)].join('\n') + '\n'
}

/** Shortens a PeerId or a 32-byte id for tables: `12D3Ko…x9Yz`. */
export function short (id: string, keep = 6): string {
  return id.length <= keep * 2 + 1 ? id : `${id.slice(0, keep)}…${id.slice(-4)}`
}
