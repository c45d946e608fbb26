// examples/bot_player.mjs's command line, as examples/bot_player.py's: the same options and defaults,
// `--seed` used (the same seed, the same choices), and `--help` or a wrong command line answered
// without running. Run with `node --test test/` (after `npm run build`).
import assert from "node:assert/strict";
import { test } from "node:test";

import { parseOptions, randomSource } from "../examples/bot_player.mjs";

test("the options and their defaults", () => {
  assert.deepEqual(parseOptions(["--key-file", "bot.key"]), {
    baseUrl: "http://127.0.0.1:8000", keyFile: "bot.key", name: "Bot", games: 1, targetScore: 15, unrated: false,
    botsAfter: undefined, seed: undefined, timeout: 3600, webhook: undefined, listen: "127.0.0.1:8443",
    tlsCert: undefined, tlsKey: undefined,
  });
  const given = parseOptions(["--key-file=k", "--games", "3", "--unrated", "--bots-after", "0", "--seed", "7", "--timeout", "2.5"]);
  assert.deepEqual([given.games, given.unrated, given.botsAfter, given.seed, given.timeout], [3, true, 0, 7, 2.5]);
});

test("--help, an unknown option, a missing value or a bad number: a message and a status, no run", () => {
  const refusal = (/** @type {string[]} */ argv) => {
    try {
      parseOptions(argv);
    } catch (error) {
      return [error.status, error.message.split("\n").at(-1)];
    }
    assert.fail(`${argv.join(" ")} was accepted`);
  };
  assert.equal(refusal(["--help"])[0], 0);
  const [status, message] = refusal(["--help-me", "x", "--key-file", "k"]); // not a value eaten by an unknown flag
  assert.equal(status, 2);
  assert.match(message, /^bot_player\.mjs: error: Unknown option '--help-me'/);
  assert.equal(refusal(["--key-file", "--games", "2"])[0], 2); // not a key file named "--games"
  assert.deepEqual(refusal(["--key-file", "k", "--games", "two"]), [2, "bot_player.mjs: error: argument --games: invalid int value: 'two'"]);
  assert.deepEqual(refusal([]), [2, "bot_player.mjs: error: the following arguments are required: --key-file"]);
});

test("a seed gives the same choices every run; another seed, others", () => {
  const draw = (/** @type {number} */ seed) => Array.from({ length: 8 }, randomSource(seed));
  assert.deepEqual(draw(1), draw(1));
  assert.notDeepEqual(draw(1), draw(2));
  assert.ok(draw(3).every((x) => x >= 0 && x < 1));
});
