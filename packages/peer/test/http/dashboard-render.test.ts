import { readFile } from 'node:fs/promises'
import { chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Browser, Page } from 'playwright-core'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

/** The dashboard's render module in a real page (Debian's chromium, headless), with `card(account)` beside it. */
let browser: Browser
let page: Page

beforeAll(async () => {
  browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox'] })
  page = await browser.newPage()
  const render = await readFile(new URL('../../dashboard/render.js', import.meta.url), 'utf8')
  // the module's own text, run as the page's module: `card` renders the "This peer" card and reads its rows
  await page.addScriptTag({
    type: 'module',
    content: `${render}
window.card = (account, state) => {
  const dl = document.createElement('dl')
  renderSelf(dl, { ...state, self: { peerId: '12D3KooWQiXyeuouw8AYNGAZ3pqxUhhhZmqAUmgEqFPvCzoQJbZj', vramGb: 8, models: [], account } })
  return Object.fromEntries([...dl.querySelectorAll('dd')].map(dd => [dd.dataset.field, dd.textContent]))
}`
  })
  await page.waitForFunction(() => 'card' in window)
}, 30_000)

afterAll(async () => {
  await browser?.close()
})

const card = async (account: Record<string, unknown> | undefined, state: Record<string, unknown> = {}): Promise<Record<string, string>> =>
  await page.evaluate(async ([a, s]) => (window as unknown as { card: (a: unknown, s: unknown) => Record<string, string> }).card(a, s), [account, state] as const)

const base = {
  address: '0x9965507D1a55bcC2695C58ba16FB37d819B0A4dc', balanceWei: '1000000000000000000', score: '1000',
  earnedWei: '0', paidJobs: 0, eligible: false, paused: false, exiting: false, kickedOut: false, busy: false
}

describe('the dashboard\'s "This peer" card', () => {
  it('shows a withdrawn wallet as not registered, with no score (it showed the registry\'s default QoS 1000 and a bare 0 ETH stake)', async () => {
    const rows = await card({ ...base, registered: false, stakeWei: '0' })
    expect(rows.stake).toBe('0 ETH (not registered)')
    expect(rows.QoS).toBe('-')
  })

  it('before its chain is read it says so, not "no chain" (the first state a page gets came before the first read)', async () => {
    expect((await card(undefined, { chainConfigured: true })).wallet).toBe('reading the chain…')
    expect((await card(undefined, { chainConfigured: true, chainError: 'RpcUnreachableError: ...' })).wallet).toBe('chain unreachable')
    expect((await card(undefined)).wallet).toBe('no chain')
    expect((await card(undefined, { chainConfigured: true })).balance).toBe('-')
  })

  it('shows a registered node\'s QoS scores and standing', async () => {
    const rows = await card({ ...base, registered: true, paused: true, stakeWei: '100000000000000000', qos: { score: 1000, vram: 0.5, timeout: 0 } })
    expect(rows.stake).toBe('0.1 ETH (paused)')
    expect(rows.QoS).toBe('B 1000 of 2000 · R 0.50 · P 0.00')
    // an exiting node (the registry pauses it too): from when its stake can be withdrawn, in chain time
    const leaving = await card({ ...base, registered: true, paused: true, exiting: true, withdrawableAt: 1_796_558_400, stakeWei: '100000000000000000' })
    expect(leaving.stake).toBe('0.1 ETH (exiting: withdraw from 2026-12-06T12:00:00Z)')
  })
})
