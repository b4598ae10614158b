const UNITS = ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB']

/** Bytes for people, in the largest binary unit of at least 1: `64 MiB`, `1.5 GiB`, `300 bytes`. */
export function sizeText (bytes: number): string {
  let value = bytes
  let unit = 0
  while (value >= 1024 && unit < UNITS.length - 1) {
    value /= 1024
    unit++
  }
  return `${Number.isInteger(value) ? value : value.toFixed(1)} ${UNITS[unit]}`
}
