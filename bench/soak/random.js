'use strict';
// A small seeded PRNG (mulberry32), so a soak's choices (operations, kill targets, intervals) follow its seed.

/** A function returning floats in [0, 1) from a 32-bit seed. */
function seededRandom(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  next.int = (min, max) => min + Math.floor(next() * (max - min + 1));
  next.pick = (items) => items[Math.floor(next() * items.length)];
  next.chance = (p) => next() < p;
  return next;
}

/** Mixes a base seed with small integers (process slot, restart count) into a new 32-bit seed. */
function mixSeed(...parts) {
  let h = 2166136261;
  for (const part of parts) {
    h ^= part >>> 0;
    h = Math.imul(h, 16777619) >>> 0;
  }
  return h;
}

module.exports = { seededRandom, mixSeed };
