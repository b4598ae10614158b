// Economics of cheating against the settlement (issue #8, docs/settlement.md "Economics").
//
// For each strategy: the probability that the cheat is detected (pDetect), the cheater's expected value (evCheat)
// and the same actor's expected value when it plays honestly (evHonest), in ether, and margin = evHonest - evCheat
// (> 0: cheating does not pay). The numbers come from the closed forms of docs/settlement.md; a Monte Carlo of the
// same game (random sample windows per MacroJob, the cheater's best placement of its fakes, random verifier draws
// for coalitions) checks every pDetect and evCheat within 4 standard errors.
//
// Parameters: the deployment defaults of @jobmesh/contracts (bondBps, drawPenaltyBps) and of the SDK (k = 3,
// samples = 1), the job shape (4 MacroJobs x 8 MicroJobs), fee 1 and 100 ether. A MicroJob run costs its
// runner half of what a processor is paid for it (GAMMA); gas at 30 gwei with the gas of bench/out/gas.json when
// present (the largest N), else the docs' numbers.
// Output: a table and bench/out/economics.json as { params, rows: [{ strategy, fee, f?, w?, pDetect, evCheat,
// evHonest, margin, mc: { pDetect, evCheat, ok } }] }.
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

let contracts
try {
  contracts = await import('@jobmesh/contracts')
} catch (err) {
  process.stderr.write(`economics bench: cannot load @jobmesh/contracts (run \`npm run build\` first): ${err.message}\n`)
  process.exit(1)
}
const { DEFAULT_ESCROW_PARAMS } = contracts

const outDir = path.join(path.dirname(fileURLToPath(import.meta.url)), 'out')
const M = 4
const P = 8
const N = M * P
const K = 3
const SAMPLES = 1
const GAMMA = 0.5
const GAS_PRICE_ETH = 30e-9
const TRIALS = Number(process.env.JOBMESH_ECON_TRIALS ?? 200_000)
const BOND = DEFAULT_ESCROW_PARAMS.bondBps / 10_000
const DRAW_PENALTY = DEFAULT_ESCROW_PARAMS.drawPenaltyBps / 10_000
/** Share of the verified jobs that are fake (for the copying verifier). */
const FAKE_SHARE = 0.05

function gasTable () {
  const fallback = { commitResults: 77_000, submitResults: 117_000, revealSeed: 60_000, proveSample: 107_000, commit: 65_000, reveal: 156_000, settle: 164_000, claim: 90_000, 'claim (15 leaves)': 232_000 }
  try {
    const rows = JSON.parse(readFileSync(path.join(outDir, 'gas.json'), 'utf8'))
    const maxN = Math.max(...rows.map((r) => r.nodes))
    const out = { ...fallback }
    for (const r of rows) if (r.nodes === maxN && r.op in out) out[r.op] = Number(r.gas)
    return out
  } catch {
    return fallback
  }
}
const GAS = gasTable()
const gasCost = (...ops) => ops.reduce((s, op) => s + GAS[op], 0) * GAS_PRICE_ETH

/** The cheater's best placement of `fakes` wrong MicroJobs over the MacroJobs: the smallest detection probability. */
function bestPlacement (fakes) {
  // a MacroJob with a contiguous block of a fakes escapes a window of SAMPLES consecutive MicroJobs with
  // probability 1 - (a + SAMPLES - 1) / P (a = 0: always); contiguous is the best arrangement inside a MacroJob
  const miss = (a) => a === 0 ? 1 : Math.max(0, 1 - (a + SAMPLES - 1) / P)
  let best = new Map([[0, { logMiss: 0, alloc: [] }]])
  for (let m = 0; m < M; m++) {
    const next = new Map()
    for (const [used, s] of best) {
      for (let a = 0; a <= P && used + a <= fakes; a++) {
        const q = miss(a)
        const cand = { logMiss: q === 0 ? -Infinity : s.logMiss + Math.log(q), alloc: [...s.alloc, a] }
        const cur = next.get(used + a)
        if (cur == null || cand.logMiss > cur.logMiss) next.set(used + a, cand)
      }
    }
    best = next
  }
  const s = best.get(fakes)
  return { pDetect: 1 - Math.exp(s.logMiss), alloc: s.alloc }
}

/** Probability that a coalition holding share w of the draw weight gets a majority of the k verifiers. */
function coalitionMajority (w) {
  let p = 0
  const choose = (n, r) => { let c = 1; for (let i = 0; i < r; i++) c = c * (n - i) / (i + 1); return c }
  for (let c = Math.floor(K / 2) + 1; c <= K; c++) p += choose(K, c) * w ** c * (1 - w) ** (K - c)
  return p
}

/** One simulated round: does a window hit a fake? (fakes of MacroJob m are positions 0..alloc[m]-1) */
function sampleHits (alloc, rand) {
  for (let m = 0; m < M; m++) {
    const a = alloc[m]
    if (a === 0) continue
    const start = Math.floor(rand() * P)
    for (let t = 0; t < SAMPLES; t++) if ((start + t) % P < a) return true
  }
  return false
}

function prng (seed) {
  let x = seed >>> 0
  return () => {
    x ^= x << 13; x >>>= 0
    x ^= x >>> 17
    x ^= x << 5; x >>>= 0
    return x / 4294967296
  }
}

function monteCarlo (detect, payoff, seed) {
  const rand = prng(seed)
  let hits = 0
  let sum = 0
  let sum2 = 0
  for (let i = 0; i < TRIALS; i++) {
    const d = detect(rand)
    if (typeof d === 'object' ? d.caught : d) hits++
    const v = payoff(d)
    sum += v
    sum2 += v * v
  }
  const mean = sum / TRIALS
  const sd = Math.sqrt(Math.max(0, sum2 / TRIALS - mean * mean) / TRIALS)
  return { pDetect: hits / TRIALS, evCheat: mean, se: sd }
}

const rows = []
let seed = 1
function row (r, mc) {
  const margin = r.evHonest - r.evCheat
  const sePd = Math.sqrt(r.pDetect * (1 - r.pDetect) / TRIALS)
  const ok = Math.abs(mc.pDetect - r.pDetect) <= 4 * sePd + 1e-9 && Math.abs(mc.evCheat - r.evCheat) <= 4 * mc.se + 1e-9 * Math.max(1, Math.abs(r.evCheat))
  rows.push({ ...r, margin, mc: { pDetect: mc.pDetect, evCheat: mc.evCheat, ok } })
}

for (const fee of [1, 100]) {
  const pool = fee * P / (P + K * SAMPLES) // processor pool
  const unit = pool / N // pay of one MicroJob leaf
  const cost = GAMMA * unit // cost of one MicroJob run
  const share = (fee - pool) / K // one verifier share
  const bond = BOND * fee
  const gasSubmit = gasCost('commitResults', 'submitResults', 'proveSample', 'settle')
  const gasClaimAll = gasCost('claim (15 leaves)') * N / 15 / 2

  // 1. a submitter that processed every MicroJob fakes a fraction f of them
  for (const f of [1 / 32, 1 / 8, 1 / 2, 1]) {
    const fakes = Math.round(f * N)
    const { pDetect, alloc } = bestPlacement(fakes)
    const evHonest = pool - N * cost - gasSubmit - gasClaimAll
    const payoff = (d) => (d ? -bond : pool - gasClaimAll) - (N - fakes) * cost - gasSubmit
    const evCheat = (1 - pDetect) * (pool - gasClaimAll) - pDetect * bond - (N - fakes) * cost - gasSubmit
    row({ strategy: 'submitter fakes f', fee, f, pDetect, evCheat, evHonest }, monteCarlo((r) => sampleHits(alloc, r), payoff, seed++))
  }

  // 2. a processor (not the submitter) that ran half the job fakes a fraction f of the job's MicroJobs: the culprit
  //    rule slashes it, not the finalizer, and its leaves are not paid (the job is re-run without it)
  for (const f of [1 / 32, 1 / 8, 1 / 2]) {
    const fakes = Math.round(f * N)
    const { pDetect, alloc } = bestPlacement(fakes)
    const mine = N / 2
    const evHonest = mine * unit - mine * cost - gasClaimAll / 2
    const payoff = (d) => (d ? -bond : mine * unit - gasClaimAll / 2) - (mine - fakes) * cost
    const evCheat = (1 - pDetect) * (mine * unit - gasClaimAll / 2) - pDetect * bond - (mine - fakes) * cost
    row({ strategy: 'processor fakes f', fee, f, pDetect, evCheat, evHonest }, monteCarlo((r) => sampleHits(alloc, r), payoff, seed++))
  }

  // 3. payout thief: did no work, submits the honest outputs with itself as payee on a fraction f of the leaves
  for (const f of [1 / 32, 1 / 8, 1 / 2, 1]) {
    const stolen = Math.round(f * N)
    const { pDetect, alloc } = bestPlacement(stolen)
    const payoff = (d) => (d ? -bond : stolen * unit) - gasSubmit
    const evCheat = (1 - pDetect) * stolen * unit - pDetect * bond - gasSubmit
    row({ strategy: 'payout thief', fee, f, pDetect, evCheat, evHonest: 0 }, monteCarlo((r) => sampleHits(alloc, r), payoff, seed++))
  }

  // 4. copying verifier: votes "match" from the public outputs without re-running. It has no execution digest (the
  //    re-runs' memories, never published), so it commits a guess: a match counts only with the votes that agree on
  //    the digest, and the honest re-runners' digest is revealed after every commitment. On an honest job it is
  //    outside the agreeing majority, on a fake one (FAKE_SHARE of the jobs) outvoted: unpaid and slashed one share
  //    unless its guess hits the 32-bit digest tag (2^-32). Honest: one share minus the re-runs.
  {
    const reruns = M * SAMPLES
    const gasVerify = gasCost('commit', 'reveal')
    const pGuess = 2 ** -32
    const evHonest = share - reruns * cost - gasVerify
    const evCheat = (1 - FAKE_SHARE) * (pGuess * share - (1 - pGuess) * share) - FAKE_SHARE * share - gasVerify
    const payoff = (d) => (d ? -share : share) - gasVerify
    row({ strategy: 'copying verifier', fee, pDetect: 1 - (1 - FAKE_SHARE) * pGuess, evCheat, evHonest }, monteCarlo((r) => r() < FAKE_SHARE || r() >= pGuess, payoff, seed++))
  }

  // 5. a cheating submitter with a coalition holding w of the draw weight: released when the coalition holds a
  //    majority of the k verifiers, else caught with the sampling probability; its best f
  for (const w of [0.05, 0.2]) {
    const pMaj = coalitionMajority(w)
    let worst
    for (const f of [1 / 32, 1 / 8, 1 / 2, 1]) {
      const fakes = Math.round(f * N)
      const { pDetect: pSample, alloc } = bestPlacement(fakes)
      const pDetect = (1 - pMaj) * pSample
      const evHonest = pool - N * cost - gasSubmit - gasClaimAll
      const evCheat = (1 - pDetect) * (pool - gasClaimAll) - pDetect * bond - (N - fakes) * cost - gasSubmit
      if (worst == null || evHonest - evCheat < worst.r.evHonest - worst.r.evCheat) worst = { r: { strategy: 'coalition', fee, w, f, pDetect, evCheat, evHonest }, alloc }
    }
    const { alloc } = worst
    const detect = (rand) => {
      let colluders = 0
      for (let i = 0; i < K; i++) if (rand() < w) colluders++
      if (colluders * 2 > K) return false
      return sampleHits(alloc, rand)
    }
    const fakes = alloc.reduce((a, b) => a + b, 0)
    const payoff = (d) => (d ? -bond : pool - gasClaimAll) - (N - fakes) * cost - gasSubmit
    row(worst.r, monteCarlo(detect, payoff, seed++))
  }

  // 7. seed withholder: a submitter faking f with one drawn verifier on its side. The verifier reveals its seed last;
  //    when the sample would catch the fakes it withholds the seed, so the sample is drawn again without it (a second
  //    chance), and pays the bond (seed penalty) and one share (silent); the other two verifiers still decide. The
  //    coalition's honest play: the submitter processes everything, the verifier re-runs and votes. Its best f.
  {
    const reruns = M * SAMPLES
    const gasVerify = gasCost('revealSeed', 'commit', 'reveal')
    let worst
    for (const f of [1 / 32, 1 / 8, 1 / 2, 1]) {
      const fakes = Math.round(f * N)
      const { pDetect: p, alloc } = bestPlacement(fakes)
      const voterOk = share - reruns * cost - gasVerify
      const subOk = pool - gasClaimAll - (N - fakes) * cost - gasSubmit
      const subCaught = -bond - (N - fakes) * cost - gasSubmit
      const withheld = -bond - share - gasCost('revealSeed')
      const evHonest = pool - N * cost - gasSubmit - gasClaimAll + voterOk
      const evCheat = (1 - p) * (subOk + voterOk) + p * (withheld + (1 - p) * subOk + p * subCaught)
      if (worst == null || evHonest - evCheat < worst.r.evHonest - worst.r.evCheat) {
        worst = { r: { strategy: 'seed withholder', fee, f, pDetect: p * p, evCheat, evHonest }, alloc, subOk, subCaught, voterOk, withheld }
      }
    }
    const { alloc, subOk, subCaught, voterOk, withheld } = worst
    const detect = (rand) => {
      if (!sampleHits(alloc, rand)) return { caught: false, withheld: false }
      return { caught: sampleHits(alloc, rand), withheld: true }
    }
    const payoff = (d) => !d.withheld ? subOk + voterOk : withheld + (d.caught ? subCaught : subOk)
    row(worst.r, monteCarlo(detect, payoff, seed++))
  }

  // 6. griefing resubmitter: garbage submitted to block the honest finalizer; every leaf is wrong, so every round
  //    detects it and slashes the bond (a missed draw window costs drawPenaltyBps of it besides)
  {
    const evCheat = -bond - gasSubmit
    row({ strategy: 'griefing resubmitter', fee, f: 1, pDetect: 1, evCheat, evHonest: 0 }, monteCarlo(() => true, () => evCheat, seed++))
  }
}

const fmt = (x) => (Math.abs(x) >= 1 ? x.toFixed(3) : x.toPrecision(3)).padStart(11)
const lines = [['strategy'.padEnd(22), 'fee'.padStart(5), 'f'.padStart(7), 'w'.padStart(5), 'pDetect'.padStart(9), 'evCheat'.padStart(11), 'evHonest'.padStart(11), 'margin'.padStart(11), '  MC'].join('')]
for (const r of rows) {
  lines.push([
    r.strategy.padEnd(22), String(r.fee).padStart(5), (r.f == null ? '-' : r.f.toFixed(4)).padStart(7), (r.w == null ? '-' : String(r.w)).padStart(5),
    r.pDetect.toFixed(4).padStart(9), fmt(r.evCheat), fmt(r.evHonest), fmt(r.margin), `  ${r.mc.ok ? 'ok' : 'OFF'}${r.margin > 0 ? '' : '  (cheating pays)'}`
  ].join(''))
}
process.stdout.write(`k = ${K}, samples = ${SAMPLES}, ${M} x ${P} MicroJobs, bond ${BOND} x fee, draw penalty ${DRAW_PENALTY} x bond, run cost ${GAMMA} x pay, ${FAKE_SHARE} of jobs fake (copying verifier), ${TRIALS} Monte Carlo trials per row; ether\n`)
process.stdout.write(lines.join('\n') + '\n')
const bad = rows.filter((r) => !(r.margin > 0))
process.stdout.write(bad.length === 0 ? 'every margin > 0\n' : `margin <= 0 in ${bad.length} rows: ${[...new Set(bad.map((r) => r.strategy))].join(', ')}\n`)
mkdirSync(outDir, { recursive: true })
const params = { k: K, samples: SAMPLES, macroJobs: M, microJobsPerMacro: P, bond: BOND, drawPenalty: DRAW_PENALTY, gamma: GAMMA, gasPriceEth: GAS_PRICE_ETH, fakeShare: FAKE_SHARE, trials: TRIALS, gas: GAS }
writeFileSync(path.join(outDir, 'economics.json'), JSON.stringify({ params, rows }, null, 2) + '\n')
process.stdout.write(`wrote ${path.relative(process.cwd(), path.join(outDir, 'economics.json'))}\n`)
