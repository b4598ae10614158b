// Rendering of the dashboard's state. Every value from the network is set as text, never as HTML.

/** Creates an element: h('td', { class: 'mono' }, 'text', child). */
export function h (tag, attrs = {}, ...children) {
  const el = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v == null || v === false) continue
    if (k === 'style') el.style.cssText = v
    else el.setAttribute(k, v === true ? '' : String(v))
  }
  for (const c of children.flat()) {
    if (c == null || c === false) continue
    el.append(c instanceof Node ? c : document.createTextNode(String(c)))
  }
  return el
}

/** `12D3Ko…x9Yz` */
export function short (id, keep = 6) {
  if (id == null) return '-'
  return id.length <= keep * 2 + 1 ? id : `${id.slice(0, keep)}…${id.slice(-4)}`
}

/** Wei (decimal string) as ETH rounded to 4 decimals; an amount that rounds to 0 is `< 0.0001 ETH`, not `0 ETH`. */
export function eth (wei) {
  if (wei == null) return '-'
  const v = BigInt(wei)
  const units = (v + 5n * 10n ** 13n) / 10n ** 14n
  if (units === 0n && v > 0n) return '< 0.0001 ETH'
  const frac = units % 10000n
  return `${units / 10000n}${frac > 0n ? '.' + frac.toString().padStart(4, '0').replace(/0+$/, '') : ''} ETH`
}

function pct (done, total) {
  return total > 0 ? Math.floor(done * 100 / total) : 0
}

function bar (done, total) {
  const p = pct(done, total)
  return h('div', { class: `bar${p >= 100 ? ' done' : ''}`, role: 'progressbar', 'aria-valuenow': p, 'aria-valuemax': 100 },
    h('i', { style: `width:${p}%` }))
}

/** The "this peer" card. */
export function renderSelf (dl, s) {
  const a = s.self.account
  const rows = [
    ['peer', h('span', { class: 'mono', title: s.self.peerId }, short(s.self.peerId))],
    ['hardware', `${s.self.gpuModel ?? 'any GPU'} · ${s.self.vramGb} GB VRAM`],
    // a peer with a chain it cannot read, or has not read yet (the first state a page gets), has no account yet: not
    // "no chain" (the header names the chain's error)
    ['wallet', a ? h('span', { class: 'mono', title: a.address }, short(a.address, 8)) : s.chainError ? 'chain unreachable' : s.chainConfigured ? 'reading the chain…' : 'no chain'],
    ['balance', a ? eth(a.balanceWei) : '-'],
    ['stake', a ? eth(a.stakeWei) + standing(a) : '-'],
    // a wallet no longer registered (withdrawn) has no record to score: the registry's default is no score of it
    ['QoS', a?.registered ? (a.qos ? `B ${a.qos.score} of 2000 · R ${a.qos.vram.toFixed(2)} · P ${a.qos.timeout.toFixed(2)}` : a.score) : '-'],
    ['earned', a ? `${eth(a.earnedWei)} (${a.paidJobs} ${a.paidJobs === 1 ? 'job' : 'jobs'})` : '-'],
    ['incentive', a?.incentive ? `share ${shareText(a.incentive)} · ${eth(a.incentive.earnedWei)} unclaimed` : '-'],
    ['models', s.self.models?.length ? s.self.models.map(modelText).join(', ') : 'none']
  ]
  dl.replaceChildren(...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', { 'data-field': k }, v)]))
}

/**
 * ` (not registered)`, ` (exiting)` (with from when it can withdraw), ` (kicked out)` or ` (paused)`: the registry pauses an
 * exiting node too (as `jobmesh status` says).
 */
function standing (a) {
  if (!a.registered) return ' (not registered)'
  if (a.exiting) return a.withdrawableAt == null ? ' (exiting)' : ` (exiting: withdraw from ${new Date(a.withdrawableAt * 1000).toISOString().replace('.000Z', 'Z')})`
  if (a.kickedOut) return ' (kicked out)'
  return a.paused ? ' (paused)' : ''
}

/** The recorded incentive share, and the current one when the peer says it moved (recorded at the next poke or claim), as `jobmesh status` says. */
function shareText (i) {
  const now = i.shareMoved === true ? ` (${i.shareNow.toFixed(2)} now)` : ''
  return `${i.share.toFixed(2)}${now}`
}

const MODEL_SOURCES = { start: 'kept', fallback: 'fetched for a job', prompt: 'prefetched on a prompt' }

/** A held model: its id, how it came, and whether the chain lists this node as a holder. */
function modelText (m) {
  return `${m.modelId} (${MODEL_SOURCES[m.source] ?? m.source}${m.announced ? ', on chain' : ''})`
}

/** The peers table. */
export function renderPeers (section, s) {
  const rows = s.peers.map(p => h('tr', { 'data-peer': p.peerId },
    h('td', { class: 'mono', title: p.peerId }, short(p.peerId)),
    h('td', {}, h('span', { class: `dot${p.connected ? ' on' : ''}` }), p.connected ? 'connected' : 'known'),
    h('td', {}, p.profile ? `${p.profile.gpuModel} · ${p.profile.vramGb} GB` : 'client'),
    h('td', {}, p.stakeWei != null ? eth(p.stakeWei) + (p.paused ? ' (paused)' : '') : '-'),
    h('td', {}, p.score ?? '-'),
    h('td', { class: 'mono', title: p.profile?.address ?? '' }, p.profile ? short(p.profile.address, 8) : '-')))
  section.querySelector('tbody').replaceChildren(...rows)
  section.querySelector('.count').textContent = `(${s.peers.length})`
  section.querySelector('.empty').classList.toggle('hidden', s.peers.length > 0)
}

function verification (v) {
  if (v == null) return h('p', { class: 'muted' }, 'chain state not read yet')
  // a settled job's view is no longer refreshed: its deadlines are history, not a countdown
  const live = v.status === 'Submitted'
  const left = (b) => b == null || !live ? '' : b >= v.headBlock ? ` (in ${b - v.headBlock} blocks)` : ' (passed)'
  // a drawn verifier that missed the seed window may not vote this round: the others are the ones to commit and reveal
  const missed = v.voters != null && v.voters < v.k
  const voters = missed ? v.voters : v.k
  const rows = [
    ['escrow', v.status + (v.round > 0 ? `, round ${v.round}` : '')],
    ['fee', eth(v.feeWei)],
    ['verifiers drawn', `${v.assigned}/${v.k}`],
    ['committed', `${v.commits}/${voters}` + (missed ? ` (${v.k - voters} missed the seed window)` : '')],
    ['revealed', `${v.reveals}/${voters}`],
    ['commit deadline', v.commitDeadline != null ? `block ${v.commitDeadline}${left(v.commitDeadline)}` : '-'],
    ['reveal deadline', v.revealDeadline != null ? `block ${v.revealDeadline}${left(v.revealDeadline)}` : '-'],
    ['submitter', v.submitter ? h('span', { class: 'mono', title: v.submitter }, short(v.submitter, 8)) : '-']
  ]
  return h('dl', {}, rows.flatMap(([k, val]) => [h('dt', {}, k), h('dd', { 'data-field': k }, val)]))
}

/** One job: overall and per-MacroJob progress, queue owners and their moves, verification phase, story. */
export function renderJob (job, previousOwners) {
  const p = job.progress
  const percent = pct(p.done, p.total)
  const macros = p.macros.map(m => {
    const key = `${job.jobId}/${m.macroIndex}`
    const moved = previousOwners.has(key) && previousOwners.get(key) !== m.owner
    previousOwners.set(key, m.owner)
    return h('div', { class: `macro${moved ? ' moved' : ''}`, 'data-macro': m.macroIndex },
      h('span', {}, `MacroJob ${m.macroIndex}`),
      bar(m.done, m.size),
      h('span', {}, `${m.done}/${m.size}`),
      h('span', { class: 'owner mono', 'data-owner': m.owner ?? '', title: m.owner ?? 'no owner yet' },
        m.owner ? `owner ${short(m.owner)}` : 'no owner', m.moves > 1 ? ` ↻${m.moves - 1}` : ''))
  })
  const moves = p.moves.slice(-12).reverse().map(mv => h('li', {},
    `${new Date(mv.at).toLocaleTimeString()} MacroJob ${mv.macroIndex}: ${mv.from ? short(mv.from) + ' → ' : ''}${short(mv.to)}`))
  return h('article', { class: 'job', 'data-job': job.jobId, 'data-phase': job.story.phase },
    h('div', { class: 'job-head' },
      // the whole id, one click selects it (jobmesh-dapp describe <jobId>)
      h('strong', { class: 'mono job-id', title: 'job id' }, job.jobId),
      h('span', { class: `phase ${job.story.phase}` }, job.story.phase),
      h('span', { class: 'muted' }, needsText(job.requirements)),
      h('span', { class: 'pct', 'data-field': 'percent' }, `${percent} %`)),
    h('p', { class: 'waiting' }, h('b', {}, 'waiting for: '), job.story.waitingFor),
    bar(p.done, p.total),
    h('div', { class: 'job-body' },
      h('div', {},
        h('p', { class: 'muted' }, `${p.done} of ${p.total} MicroJobs · ${job.story.matching}`),
        macros,
        moves.length > 0 ? h('details', { 'data-key': 'moves' }, h('summary', {}, 'queue ownership moves'), h('ol', { class: 'moves' }, moves)) : null),
      h('div', { class: 'verif' }, h('h3', { style: 'font-size:.95rem;margin:.2rem 0 .4rem' }, 'Verification'), verification(job.verification),
        h('details', { 'data-key': 'story' }, h('summary', {}, 'story'), h('ol', { class: 'story' }, job.story.lines.map(l => h('li', {}, l)))))))
}

/** `needs 16 GB VRAM, RTX 4090`, or `any hardware` for a job that asks for none. */
function needsText (r) {
  const parts = [r.minVramGb > 0 ? `${r.minVramGb} GB VRAM` : null, r.gpuModel || null].filter(p => p != null)
  return parts.length === 0 ? 'any hardware' : `needs ${parts.join(', ')}`
}

/** The recent events list, newest first. */
export function renderEvents (ol, events) {
  ol.replaceChildren(...events.slice().reverse().map(e => h('li', { class: e.level, 'data-kind': e.kind },
    h('time', {}, new Date(e.at).toLocaleTimeString()), e.text)))
}
