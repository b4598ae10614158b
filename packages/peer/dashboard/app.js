// The jobmesh dashboard: follows the peer's state over Server-Sent Events (/events) and renders it.
import { renderEvents, renderJob, renderPeers, renderSelf, short } from './render.js'

const $ = (sel) => document.querySelector(sel)
const owners = new Map()

function render (s) {
  $('#self-id').textContent = short(s.self.peerId)
  $('#self-id').title = s.self.peerId
  $('#block').textContent = s.headBlock != null ? `block ${s.headBlock}` : ''
  renderSelf($('#self dl'), s)
  renderPeers($('#peers'), s)
  const jobs = s.jobs.slice().sort((a, b) => a.jobId.localeCompare(b.jobId))
  $('#jobs .list').replaceChildren(...jobs.map(j => renderJob(j, owners)))
  $('#jobs .count').textContent = `(${jobs.length})`
  $('#jobs .empty').classList.toggle('hidden', jobs.length > 0)
  renderEvents($('#events ol'), s.events)
  if (s.chainError) $('#block').textContent = `chain: ${s.chainError}`
  document.body.dataset.updated = String(s.at)
}

function connect () {
  const live = $('#live')
  const source = new EventSource('events')
  source.addEventListener('open', () => { live.textContent = 'live'; live.className = 'live on' })
  source.addEventListener('error', () => { live.textContent = 'reconnecting…'; live.className = 'live off' })
  source.addEventListener('state', (evt) => { render(JSON.parse(evt.data)) })
}

connect()
