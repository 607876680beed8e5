// A seeded shuffle for the model tests, so a failing order can be replayed.

// mulberry32: a small seeded PRNG, so a failing shuffle can be replayed.
function rng (seed) {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

/** shuffle is a Fisher-Yates shuffle of a copy of xs with seed. */
export function shuffle (xs, seed) {
  const r = rng(seed)
  const out = [...xs]
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(r() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]]
  }
  return out
}
