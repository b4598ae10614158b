/** A valid JobSpec input (external form: amounts as decimal strings) that tests mutate. */
// tests put wrong types into any field on purpose
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export function validSpecInput (): Record<string, any> {
  return {
    version: 1,
    creator: '0x00000000000000000000000000000000000000a1',
    codeUri: 'ipfs://bafkreigh2akiscaildcqabsyg3dfr6chu3fgpregiymsck7e7aqa4s52zy',
    dataUri: 'https://example.org/data.bin',
    blockSize: 4096,
    blockCount: 10,
    slicing: { macroJobs: 2, microJobsPerMacro: 2, blocksPerMicro: 3 },
    seed: '42',
    requirements: { minVramGb: 8, gpuModel: 'RTX4090' },
    price: '10000000000000000000',
    estimate: { secondsPerMicroJob: 20 },
    verifiers: 3,
    deadline: 1_900_000_000_000
  }
}
