import { statfs } from 'node:fs/promises'
import { dirname } from 'node:path'

/** statfs types of the kernel's own file systems (linux/magic.h): procfs, sysfs, debugfs, cgroup2. */
const KERNEL_FS: ReadonlyMap<number, string> = new Map([
  [0x9fa0, '/proc'], [0x62656572, '/sys'], [0x64626720, 'debugfs'], [0x63677270, 'cgroup2']
])

/**
 * The kernel file system (`/proc`, `/sys`...) a path would be made on, judged by the first folder of it that exists;
 * undefined for an ordinary one, or where it cannot be told. Node's `mkdir -p` under /proc spins for minutes at full
 * CPU instead of failing, so a data dir or output folder there is refused before any mkdir.
 */
export async function kernelFilesystem (path: string): Promise<string | undefined> {
  for (let p = path; ; p = dirname(p)) {
    try {
      return KERNEL_FS.get(Number((await statfs(p)).type))
    } catch {
      if (dirname(p) === p) return undefined
    }
  }
}
