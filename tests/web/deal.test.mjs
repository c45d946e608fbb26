// The browser's fair-deal algorithm (service/web/js/deal.js) against the test vectors of docs/fair-deals.md.

import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { test } from "node:test";

import { commitment, dealHands, dealOrder, fromHex } from "../../service/web/js/deal.js";

/** The vectors, read from the page itself so that the page and this test cannot drift apart. */
async function vectors() {
  const page = await readFile(new URL("../../docs/fair-deals.md", import.meta.url), "utf8");
  const blocks = [...page.matchAll(/### Vector \d+[^\n]*\n\n```text\n([\s\S]*?)```/g)].map((match) => match[1]);
  return blocks.map((block) => {
    const fields = {};
    let key = "";
    for (const line of block.split("\n")) {
      const named = line.match(/^(seed|commitment|deck|dealer|hand \d)\s+(.*)$/);
      if (named) [, key] = named;
      const words = (named ? named[2] : line).trim().split(/\s+/).filter(Boolean);
      fields[key] = [...(named ? [] : fields[key]), ...words];
    }
    return fields;
  });
}

test("the page has three vectors", async () => {
  assert.equal((await vectors()).length, 3);
});

test("each vector's commitment, deck and hands recompute", async () => {
  for (const vector of await vectors()) {
    const seed = fromHex(vector.seed[0]);
    assert.equal(await commitment(seed), vector.commitment[0]);
    assert.deepEqual(await dealOrder(seed), vector.deck);
    const hands = await dealHands(seed, Number(vector.dealer[0]));
    hands.forEach((hand, seat) => assert.deepEqual(hand, vector[`hand ${seat}`], `hand ${seat}`));
  }
});

test("a malformed seed is refused", () => {
  assert.throws(() => fromHex("xyz"));
});
