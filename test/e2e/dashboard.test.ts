import { execFile } from 'node:child_process'
import { mkdtemp, stat } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import parsePrometheusTextFormat from 'parse-prometheus-text-format'
import { chromium } from 'playwright-core'
import { parseEther } from 'ethers'
import { afterEach, describe, expect, it } from 'vitest'
import { CLI_BIN, METRIC_NAMES } from '@jobmesh/peer'
import { encodeMandelbrotData, loadExampleWasm, MANDELBROT_BLOCK_SIZE, submitMandelbrot } from '../../examples/src/index.js'
import { DAPP_BIN } from './cli.js'
import { startNetwork } from './helpers.js'
import type { Browser } from 'playwright-core'
import type { Network } from './helpers.js'
import type { MandelbrotImage } from '../../examples/src/index.js'
import { waitFor } from '@jobmesh/testkit'

const run = promisify(execFile)
const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const IMAGE: MandelbrotImage = { width: 64, height: 64, x0: -2.2, y0: 1.2, x1: 0.9, y1: -1.2, maxIter: 48 }

interface Family { name: string, type: string, metrics: Array<{ value: string, labels?: Record<string, string> }> }

async function metricsOf (url: string): Promise<Family[]> {
  const res = await fetch(url + 'metrics', { signal: AbortSignal.timeout(10_000) })
  expect(res.headers.get('content-type')).toContain('text/plain')
  return parsePrometheusTextFormat(await res.text()) as Family[]
}

function value (families: Family[], name: string, labels: Record<string, string> = {}): number {
  const m = families.find(f => f.name === name)?.metrics.find(x => Object.entries(labels).every(([k, v]) => x.labels?.[k] === v))
  return m == null ? Number.NaN : Number(m.value)
}

describe('end to end: the dashboard, /metrics and describe on a devnet of 4 jobmesh processes', () => {
  let net: Network | undefined
  let browser: Browser | undefined

  afterEach(async () => {
    await browser?.close()
    browser = undefined
    await net?.stop()
    net = undefined
  })

  it('a browser watches a job to its release; metrics count its MicroJobs; describe explains an impossible job', async () => {
    // peer-0 keeps a model at hand: a name, not content, so nothing is fetched; it is announced on chain all the same
    net = await startNetwork({ peers: 4, http: true, peer: (i) => i === 0 ? { models: ['sdxl'] } : {} })
    const { client, devnet } = net
    const peerIds = new Set(devnet.peers.map(p => p.peerId))
    const url = devnet.peers[0].dashboardUrl
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/$/)
    const shots = await mkdtemp(join(tmpdir(), 'jobmesh-dashboard-'))

    browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
    const page = await browser.newPage({ viewport: { width: 1366, height: 900 } })
    await page.goto(url ?? '')
    await page.waitForSelector('#live.on', { timeout: 10_000 })
    // the other three devnet peers, from their signed profiles, with stake from the registry
    // (bounded at 60 s: with another devnet's test beside it on 2 cores this once took more than 30 s; a timeout says
    // what the page and the peer's state showed)
    await page.waitForFunction((ids) => ids.every(id => document.querySelector(`#peers tr[data-peer="${id}"]`)?.textContent?.includes('10 ETH') === true),
      devnet.peers.slice(1).map(p => p.peerId), { timeout: 60_000 })
      .catch(async (err: Error) => {
        const table = await page.locator('#peers').textContent().catch(() => '(no #peers)')
        const state = await fetch(new URL('/api/state', url ?? '')).then(async r => await r.text(), (e: Error) => e.message)
        throw new Error(`${err.message}\n#peers: ${table ?? ''}\n/api/state: ${state.slice(0, 4000)}`, { cause: err })
      })

    // 3 verifiers: with 4 peers, the three that did not submit the results
    const job = await submitMandelbrot(client, { image: IMAGE, macroJobs: 2, microJobsPerMacro: 4, price: parseEther('1'), verifiers: 3 })
    const card = `[data-job="${job.jobId}"]`
    await page.waitForSelector(`${card} [data-field="percent"]:text-is("100 %")`, { timeout: 120_000 })
    const owners = await page.$$eval(`${card} .owner`, els => els.map(e => (e as HTMLElement).dataset.owner ?? ''))
    expect(owners).toHaveLength(2)
    for (const o of owners) expect(peerIds.has(o)).toBe(true)
    await page.waitForSelector(`${card}[data-phase="released"]`, { timeout: 150_000 }).catch(async (err: Error) => {
      await page.screenshot({ path: join(shots, 'not-released.png'), fullPage: true })
      throw new Error(`${err.message}; the page: ${join(shots, 'not-released.png')}`)
    })
    expect(await page.textContent(`${card} [data-field="verifiers drawn"]`)).toMatch(/^[1-9]\d*\/[1-9]\d*$/)
    // a released job's deadlines are history, not a countdown (its chain view is no longer refreshed)
    for (const field of ['commit deadline', 'reveal deadline']) expect(await page.textContent(`${card} [data-field="${field}"]`)).toMatch(/^(block \d+|-)$/)
    // this peer's QoS scores from the registry: B (of 2000), R (its 16 GB is the largest VRAM registered), P
    expect(await page.textContent('#self [data-field="QoS"]')).toMatch(/^B \d+ of 2000 · R 1\.00 · P (0|1)\.\d\d$/)
    expect(await page.textContent('#self [data-field="incentive"]')).toMatch(/^share 0\.\d\d( \(0\.\d\d now\))? · [\d.]+ ETH unclaimed$/)
    await page.waitForSelector('#self [data-field="models"]:text-is("sdxl (kept, on chain)")', { timeout: 30_000 })
    // the whole job id is on the card (one click selects it, for jobmesh-dapp describe)
    expect(await page.textContent(`${card} .job-id`)).toBe(job.jobId)
    // a section the reader opened stays open across the pushes (every 2 s at least; the cards were drawn anew each time)
    await page.click(`${card} details[data-key="story"] summary`)
    // the story names the finalizer, as describe does (the card's had no such line), and shows whole, its last line too
    await page.waitForSelector(`${card} ol.story li:text-matches("^finalized by 12D3KooW")`, { timeout: 30_000 })
    expect(await page.$eval(`${card} ol.story`, el => el.scrollHeight <= el.clientHeight + 1)).toBe(true)
    const updated = await page.evaluate(() => document.body.dataset.updated)
    await page.waitForFunction((u) => document.body.dataset.updated !== u, updated, { timeout: 20_000 })
    await page.waitForFunction((u) => document.body.dataset.updated !== u, await page.evaluate(() => document.body.dataset.updated), { timeout: 20_000 })
    expect(await page.$eval(`${card} details[data-key="story"]`, d => (d as HTMLDetailsElement).open)).toBe(true)
    const screenshot = join(shots, 'dashboard.png')
    await page.screenshot({ path: screenshot, fullPage: true })
    expect((await stat(screenshot)).size).toBeGreaterThan(10_000)
    // after the screenshot (the long words stay on the kept card): a long unbroken string from the network (a peer's
    // GPU model, a job's requirement) wraps: the page never gets wider than the window, at 1366 px and at 800 px (one
    // such peer made every dashboard 5 000 px wide)
    for (const width of [1366, 800]) {
      await page.setViewportSize({ width, height: 900 })
      const fits = await page.evaluate((c) => {
        const long = 'W'.repeat(400)
        const self = document.querySelector('#self [data-field="hardware"]')
        const waiting = document.querySelector(`${c} .waiting`)
        const peer = document.querySelector('#peers tbody td:nth-child(3)')
        for (const el of [self, waiting, peer]) if (el != null) el.textContent = long
        return { page: document.documentElement.scrollWidth, window: window.innerWidth }
      }, card)
      expect(fits.page, `at ${width} px`).toBeLessThanOrEqual(fits.window)
    }

    // /metrics: Prometheus text; the released job leaves every peer's per-job gauges once the peer has read its release
    // (each job ever seen stayed there); together the peers ran at least all 8 MicroJobs
    await waitFor(async () => (await Promise.all(devnet.peers.map(async p => await metricsOf(p.dashboardUrl ?? ''))))
      .every(f => Number.isNaN(value(f, METRIC_NAMES.jobMicroJobsDone, { job: job.jobId })) && Number.isNaN(value(f, METRIC_NAMES.jobMicroJobs, { job: job.jobId }))),
    { timeoutMs: 30_000, what: 'the released job out of the per-job gauges', intervalMs: 500 })
    const families = await Promise.all(devnet.peers.map(async p => await metricsOf(p.dashboardUrl ?? '')))
    const ran = families.reduce((n, f) => n + value(f, METRIC_NAMES.microJobsDone), 0)
    expect(ran).toBeGreaterThanOrEqual(8)
    expect(families[0].some(f => f.name.startsWith('libp2p_'))).toBe(true)
    expect(families.reduce((n, f) => n + value(f, METRIC_NAMES.finalizations), 0)).toBe(1)
    // honest peers hold nothing past the hold bound (docs/coordination.md, Held too long)
    expect(families.reduce((n, f) => n + value(f, METRIC_NAMES.holdsReleased), 0)).toBe(0)
    // operator lines without DEBUG: the finalizer says so, and every processor claims its payout
    expect(devnet.peers.some(p => p.output.some(l => l.includes(`finalized job ${job.jobId.slice(0, 8)}`)))).toBe(true)
    await waitFor(async () => (await Promise.all(devnet.peers.map(async p => value(await metricsOf(p.dashboardUrl ?? ''), METRIC_NAMES.claimsWei))))
      .reduce((a, b) => a + b, 0) > 0, { timeoutMs: 60_000, what: 'a claim', intervalMs: 250 })
    expect(devnet.peers.some(p => p.output.some(l => / claimed [0-9.]+ ETH for job /.test(l)))).toBe(true)

    // jobmesh status: each peer once, stake, balance and earnings in ETH
    const status = (await run(process.execPath, [CLI_BIN, 'status', '--data-dir', devnet.peers[0].dataDir], { timeout: 30_000 })).stdout
    expect(status).toMatch(/^stake {5}10\.0 ETH$/m)
    expect(status).toMatch(/^balance {3}[0-9.]+ ETH$/m)
    expect(status).toMatch(/^earned {4}[0-9.]+ ETH/m)
    // the registry's QoS scores: B (speed, of 2000), R (VRAM: every devnet peer has the largest, 16 GB), P (timeouts)
    expect(status).toMatch(/^QoS {7}B \d+ of 2000 \(\d+ tasks? in the window, verifications and probes\), R 1\.00 \(VRAM\), P 0\.00 \(commits within 100 % of a commit window; \d+ timed-out rounds?\)$/m)
    expect(status).toMatch(/^incentive share 0\.\d\d.*, [\d.]+ ETH unclaimed \(jobmesh claim\)$/m)
    for (const p of devnet.peers.slice(1)) expect(status.match(new RegExp(`^${p.peerId} `, 'gm'))?.length).toBe(1)

    // describe: a job whose minVramGb no peer meets (the devnet peers have 16 GB)
    const big = await client.submit({
      code: await loadExampleWasm('mandelbrot'),
      data: encodeMandelbrotData(IMAGE, 1),
      blockSize: MANDELBROT_BLOCK_SIZE,
      slicing: { macroJobs: 1, microJobsPerMacro: 2, blocksPerMicro: IMAGE.height / 2 },
      price: parseEther('0.1'),
      requirements: { minVramGb: 48 },
      estimate: { secondsPerMicroJob: 1 }
    })
    const story = await client.describe(big.jobId)
    expect(story.phase).toBe('open')
    expect(story.matching).toMatchObject({ peers: 4, matching: 0 })
    expect(story.waitingFor).toBe('a peer that can take it: 0 of 4 peers match (needs 48 GB VRAM): 4 have too little VRAM (4 x 16 GB; the job needs 48 GB)')
    const cli = await run(process.execPath, [DAPP_BIN, 'describe', big.jobId, '--rpc', devnet.anvil.rpcUrl, '--deployment', devnet.deploymentFile,
      '--bootstrap', devnet.bootstrap[0]], { timeout: 60_000, env: { ...process.env, JOBMESH_PRIVATE_KEY: devnet.dapp.privateKey } })
    expect(cli.stdout).toContain('waiting for: a peer that can take it: 0 of 4 peers match')
    expect(cli.stdout.match(/Any \/ 16 GB {2}too little VRAM/g)?.length).toBe(4)
    // the dashboard tells the same story
    await page.waitForSelector(`[data-job="${big.jobId}"] .waiting:has-text("0 of 4 peers match")`, { timeout: 30_000 })
    // and its peer's per-job gauges count the open job: 2 MicroJobs, none done
    const open = await metricsOf(devnet.peers[0].dashboardUrl ?? '')
    expect(value(open, METRIC_NAMES.jobMicroJobs, { job: big.jobId })).toBe(2)
    expect(value(open, METRIC_NAMES.jobMicroJobsDone, { job: big.jobId })).toBe(0)
    // newest first: the job submitted last is on top
    expect(await page.$$eval('#jobs .list > [data-job]', els => els.map(e => (e as HTMLElement).dataset.job))).toEqual([big.jobId, job.jobId])

    // the page's peer stops: its numbers stay, dimmed, and the page says since when they are (it looked live before)
    expect(await page.evaluate(() => document.body.classList.contains('stale'))).toBe(false)
    await devnet.peers[0].stop()
    await page.waitForSelector('body.stale #live.off', { timeout: 30_000 })
    expect(await page.textContent('#live')).toMatch(/^reconnecting… \(numbers as of \d\d:\d\d:\d\d\)$/)
    expect(await page.$eval('main', m => Number(getComputedStyle(m).opacity))).toBeLessThan(1)
  }, 360_000)
})
