// A live message from one member's connection to another's model over the
// real hub on loopback: publish → the subscription delivers it → applied to
// the model and the main view rebuilt (a 5,000-row channel). Run after
// make build: node bench/live.mjs
import { generalHub } from '../test/lib/hub.js'
import { ChatModel } from '../src/model/index.js'
import { sendMessage, messageEvent } from '../src/hub/send.js'

const { hub, alice, bob } = await generalHub()
try {
  const a = await hub.connect(alice.sk)
  const b = await hub.connect(bob.sk)
  const t0 = Math.floor(Date.now() / 1000) - 5000
  const m = new ChatModel(alice.pk)
  for (let i = 0; i < 5000; i++) m.apply(await b.publish({ ...messageEvent('general', `old ${i}`), created_at: t0 + i }))
  const waiting = new Map()
  let eose = false
  a.subscribe([{ kinds: [9], '#h': ['general'], since: Math.floor(Date.now() / 1000) }], {
    oneose: () => { eose = true },
    onevent: ev => { m.apply(ev); m.main('general'); waiting.get(ev.content)?.() }
  })
  while (!eose) await new Promise(r => setTimeout(r, 20))
  const lat = []
  for (let i = 0; i < 50; i++) {
    const text = `live ${i}`
    const got = new Promise(resolve => waiting.set(text, resolve))
    const t = performance.now()
    await Promise.all([sendMessage(b, 'general', text), got])
    lat.push(performance.now() - t)
  }
  lat.sort((x, y) => x - y)
  console.log(`rows in the model: ${m.len('general')}; live message to the model's view: median ${lat[25].toFixed(1)} ms, p90 ${lat[45].toFixed(1)} ms, max ${lat[49].toFixed(1)} ms (50 messages)`)
} finally { await hub.stop() }
