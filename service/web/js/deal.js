// The fair-deal algorithm of docs/fair-deals.md: SHA-256 counter stream, Fisher–Yates, cut, deal.

import { DECK } from "./cards.js";

const TWO_32 = 2 ** 32;

/** @param {BufferSource} bytes @returns {Promise<Uint8Array>} */
async function sha256(bytes) {
  return new Uint8Array(await crypto.subtle.digest("SHA-256", bytes));
}

/** @param {string} hex @returns {Uint8Array<ArrayBuffer>} */
export function fromHex(hex) {
  if (!/^([0-9a-f]{2})*$/i.test(hex)) throw new Error("not a hex string");
  return Uint8Array.from(hex.match(/../g) ?? [], (pair) => parseInt(pair, 16));
}

/** @param {Uint8Array} bytes */
export function toHex(bytes) {
  return Array.from(bytes, (byte) => byte.toString(16).padStart(2, "0")).join("");
}

/** The commitment to a seed: SHA-256 of its bytes, in lower-case hex. @param {Uint8Array<ArrayBuffer>} seed */
export async function commitment(seed) {
  return toHex(await sha256(seed));
}

/**
 * Step 1: the big-endian 32-bit words of SHA-256(seed || counter), counter 0, 1, 2, … (64-bit
 * big-endian). The blocks are computed ahead in batches, since Web Crypto is asynchronous.
 */
class WordStream {
  /** @param {Uint8Array<ArrayBuffer>} seed */
  constructor(seed) {
    this.seed = seed;
    this.counter = 0;
    /** @type {number[]} */
    this.words = [];
  }

  /** Make sure at least `count` more words are buffered. */
  async fill(count) {
    while (this.words.length < count) {
      const input = new Uint8Array(this.seed.length + 8);
      input.set(this.seed);
      new DataView(input.buffer).setBigUint64(this.seed.length, BigInt(this.counter));
      this.counter += 1;
      const block = new DataView((await sha256(input)).buffer);
      for (let at = 0; at < 32; at += 4) this.words.push(block.getUint32(at));
    }
  }

  /** Step 2: a uniform integer in [0, n), by rejection sampling. */
  async below(n) {
    const limit = TWO_32 - (TWO_32 % n);
    for (;;) {
      await this.fill(1);
      const x = /** @type {number} */ (this.words.shift());
      if (x < limit) return x % n;
    }
  }
}

/**
 * The deck after the shuffle (step 3) and the cut (step 4), top card first.
 * @param {Uint8Array<ArrayBuffer>} seed
 * @returns {Promise<string[]>}
 */
export async function dealOrder(seed) {
  const stream = new WordStream(seed);
  await stream.fill(48 + 8); // 47 shuffle draws and the cut, when no word is discarded
  const deck = [...DECK];
  for (let i = deck.length - 1; i > 0; i -= 1) {
    const j = await stream.below(i + 1);
    [deck[i], deck[j]] = [deck[j], deck[i]];
  }
  const at = 1 + (await stream.below(deck.length - 1));
  return [...deck.slice(at), ...deck.slice(0, at)];
}

/**
 * Step 5: the three hands by seat, each in the order dealt (card k to seat (dealer + 1 + k) mod 3).
 * @param {Uint8Array<ArrayBuffer>} seed
 * @param {number} dealer
 * @returns {Promise<string[][]>}
 */
export async function dealHands(seed, dealer) {
  const deck = await dealOrder(seed);
  /** @type {string[][]} */
  const hands = [[], [], []];
  deck.forEach((card, k) => hands[(dealer + 1 + k) % 3].push(card));
  return hands;
}
