// runWords says where a workflow run stands, from its card's badge (its
// newest record): client/chat's RunBadge.Words, tied to it by
// spec/fixtures (run_words). clock shows unix seconds as a clock time.
export function runWords (b, clock) {
  switch (b.status) {
    case 'started': return 'started'
    case 'step':
      if (b.outcome === 'running') return `running step ${b.index}/${b.of}`
      if (b.outcome === 'failed') return `step ${b.index}/${b.of} failed: ${b.reason || ''}`
      return `step ${b.index}/${b.of} ${b.outcome || ''}`
    case 'waiting':
      if (b.for === 'approval') return `waiting for approval (${b.who || ''}) until ${clock(b.until || 0)}`
      if (b.for === 'agent') return `waiting for ${b.who || ''}`
      return 'waiting until ' + clock(b.until || 0)
    case 'finished': return `✓ finished ${Math.round((b.ms || 0) / 1000)}s`
    case 'failed': return '✗ failed ' + (b.reason || '')
    case 'cancelled': return '✗ ' + (b.reason || 'cancelled')
    case 'approved': return '✓ ' + (b.reason || '')
    case 'denied': return '✗ ' + (b.reason || '')
  }
  return `${b.status}: ${b.reason || ''}`
}
