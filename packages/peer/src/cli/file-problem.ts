/**
 * Why a local file could not be read, in a person's words (`no such file`, `it is a directory`, `permission denied`),
 * else the error's own message: the one wording of the CLIs' file options (`--key-file`, `--deployment`, `--code`...).
 */
export function fileProblem (err: unknown): string {
  switch ((err as NodeJS.ErrnoException | undefined)?.code) {
    case 'ENOENT': case 'ENOTDIR': return 'no such file'
    case 'EISDIR': return 'it is a directory'
    case 'EACCES': case 'EPERM': return 'permission denied'
    default: return (err as Error | undefined)?.message ?? String(err)
  }
}
