/**
 * The user's arguments without a `--` in front of them: `npx jobmesh -- --help` and `npm exec jobmesh -- start ...`
 * pass the `--` that ends npm's own options on to the command, where commander would read it as the end of the
 * options and `--help` as an unknown command. A `--` after the command's name is left as it is.
 */
export function withoutLeadingSeparator (args: readonly string[]): string[] {
  return args[0] === '--' ? args.slice(1) : [...args]
}
