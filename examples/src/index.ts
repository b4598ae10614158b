/**
 * @packageDocumentation
 *
 * The jobmesh example jobs: their data formats, TypeScript references, data generators and the tools that
 * turn MicroJob outputs into a result (a PNG, a merged word-count table). The job code itself is
 * AssemblyScript in `examples/assembly/`, compiled to `examples/build/*.wasm` by `npm run generate -w examples`.
 */
export * from './mandelbrot-data.js'
export { renderMandelbrotRows, mandelbrotReference } from './mandelbrot-reference.js'
export { mandelbrotPng } from './mandelbrot-png.js'
export * from './wordcount-table.js'
export { countWords } from './wordcount-reference.js'
export { mergeWordCounts } from './wordcount-merge.js'
export { generateText, DEFAULT_TEXT_BYTES, DEFAULT_TEXT_BLOCK_SIZE } from './wordcount-data.js'
export type { TextInit } from './wordcount-data.js'
export { exampleWasmPath, loadExampleWasm } from './paths.js'
export type { ExampleName } from './paths.js'
export { writeExampleData } from './generate-data.js'
export type { ExampleDataInit, ExampleDataFile } from './generate-data.js'
export { submitMandelbrot, mandelbrotJobInput, mandelbrotResultPng } from './mandelbrot-job.js'
export { PALETTE_BYTES, MANDELBROT_RGB_TILE_MAGIC, gradientPalette, mandelbrotPaletteReference, submitMandelbrotPalette } from './mandelbrot-palette.js'
export type { MandelbrotJobInit } from './mandelbrot-job.js'
export { readPayouts } from './payouts.js'
export type { Payout, PayoutsInit } from './payouts.js'
