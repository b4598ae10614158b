// The jobmesh dashboard: follows the peer's state over Server-Sent Events (/events) and renders it.
import { renderEvents, renderJob, renderPeers, renderSelf, short } from './render.js'

const $ = (sel) => document.querySelector(sel)
const owners = new Map()
/** Each job's card and the state it was drawn from: a card whose job did not change is kept as it is. */
let cards = new Map()

/**
 * Draws the job cards anew only for jobs that changed, in place: an unchanged card keeps what its reader opened or
 * selected (the state comes every 2 s at least), and a redrawn card keeps its opened sections.
 */
function renderJobs (list, jobs) {
  const next = new Map()
  const els = jobs.map(j => {
    const json = JSON.stringify(j)
    const had = cards.get(j.jobId)
    if (had?.json === json) { next.set(j.jobId, had); return had.el }
    const el = renderJob(j, owners)
    for (const d of had?.el.querySelectorAll('details[open]') ?? []) el.querySelector(`details[data-key="${d.dataset.key}"]`)?.setAttribute('open', '')
    next.set(j.jobId, { json, el })
    return el
  })
  cards = next
  els.forEach((el, i) => { if (list.children[i] !== el) list.insertBefore(el, list.children[i] ?? null) })
  while (list.children.length > els.length) list.lastElementChild.remove()
}

function render (s) {
  $('#self-id').textContent = short(s.self.peerId)
  $('#self-id').title = s.self.peerId
  $('#block').textContent = s.headBlock != null ? `block ${s.headBlock}` : ''
  renderSelf($('#self dl'), s)
  renderPeers($('#peers'), s)
  // newest first, as the peer orders them
  const jobs = s.jobs
  renderJobs($('#jobs .list'), jobs)
  $('#jobs .count').textContent = `(${jobs.length})`
  $('#jobs .empty').classList.toggle('hidden', jobs.length > 0)
  renderEvents($('#events ol'), s.events)
  if (s.chainError) $('#block').textContent = `chain: ${s.chainError}`
  document.body.dataset.updated = String(s.at)
}

/** `HH:MM:SS`, local time: when the numbers on a page that lost its peer were last true. */
function clockText (ms) {
  return new Date(ms).toLocaleTimeString([], { hour: '2-digit', minute: '2-digit', second: '2-digit', hour12: false })
}

/**
 * Follows the peer's state. While the connection is down (the peer stopped or is unreachable) the page is marked
 * stale, dimmed, and says since when its numbers are: a dead peer's page must not look live.
 */
function connect () {
  const live = $('#live')
  const source = new EventSource('events')
  source.addEventListener('open', () => {
    live.textContent = 'live'
    live.className = 'live on'
    document.body.classList.remove('stale')
  })
  source.addEventListener('error', () => {
    const at = Number(document.body.dataset.updated)
    live.textContent = Number.isFinite(at) && at > 0 ? `reconnecting… (numbers as of ${clockText(at)})` : 'reconnecting…'
    live.className = 'live off'
    document.body.classList.add('stale')
  })
  source.addEventListener('state', (evt) => { render(JSON.parse(evt.data)) })
}

connect()
