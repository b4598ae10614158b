/** A node's hardware as the queue sees it. */
export interface NodeHardware {
  gpuModel: string
  vramGb: number
}

/** A task's hardware requirement. No `gpuModel` puts it in the "Any" group of its `minVramGb`. */
export interface HardwareRequirement {
  minVramGb: number
  gpuModel?: string
}

/**
 * Whether a node may take a task: the task's group is the node's own GPU model or "Any", and
 * `minVramGb <= node.vramGb` (for both).
 */
export function isEligible (req: HardwareRequirement, node: NodeHardware): boolean {
  return req.minVramGb <= node.vramGb && (req.gpuModel === undefined || req.gpuModel === node.gpuModel)
}
