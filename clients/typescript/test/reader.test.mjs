// The TypeScript client's SSE decoder and feed readers (built: `npm run build` first), against
// recorded byte streams cut at awkward places and a scripted fetch. Run with `node --test test/`.
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { test } from "node:test";

import { CONTRACT_VERSION, CoinsProblem, FeedLost, SSEDecoder, followGame, followPlayer } from "../dist/index.js";

const encoder = new TextEncoder();

// Every rule in one stream: a BOM, LF, CRLF and lone CR line ends, comments, retry, multi-line data, a
// field without a colon, an unknown field, an id with NUL (ignored), an event without data (not
// dispatched), non-ASCII characters, and an event cut off by the end.
const RECORDED = encoder.encode(
  "\ufeffretry: 2000\n\n" +
    'id: 0\r\nevent: game\r\ndata: {"id":0,"type":"game"}\r\n\r\n' +
    ": keep-alive\n\n" +
    "id: 1\revent: seat_taken\rdata: first line\rdata:second line, no space\rdata\runknown: ignored\r\r" +
    "id: 2\0bad\nevent: no_data\n\n" +
    "data: Aña ♣ 🂡\nretry: soon\n\n" +
    "id: 3\ndata: never dispatched",
);
const EXPECTED = [
  { event: "game", data: '{"id":0,"type":"game"}', id: "0" },
  { event: "seat_taken", data: "first line\nsecond line, no space\n", id: "1" },
  { event: "message", data: "Aña ♣ 🂡", id: "1" },
];

function decode(chunks) {
  const decoder = new SSEDecoder();
  return { events: chunks.flatMap((chunk) => decoder.feed(chunk)), decoder };
}

test("a recorded stream in one chunk", () => {
  const { events, decoder } = decode([RECORDED]);
  assert.deepEqual(events, EXPECTED);
  assert.equal(decoder.retryMs, 2000);
  assert.equal(decoder.comments, 1);
  assert.equal(decoder.lastEventId, "3");
});

test("every split point (inside a line, a CRLF, a UTF-8 character) gives the same events", () => {
  for (let cut = 0; cut <= RECORDED.length; cut++) {
    assert.deepEqual(decode([RECORDED.slice(0, cut), RECORDED.slice(cut)]).events, EXPECTED, `cut at ${cut}`);
  }
});

test("byte by byte", () => {
  const chunks = Array.from(RECORDED, (_, i) => RECORDED.slice(i, i + 1));
  assert.deepEqual(decode(chunks).events, EXPECTED);
});

test("the client's contract version is the spec's and the package's", () => {
  const spec = readFileSync(new URL("../../../openapi.yaml", import.meta.url), "utf8");
  assert.equal(spec.match(/^  version: (.+)$/m)?.[1], CONTRACT_VERSION);
  const { version } = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8"));
  assert.equal(version.split(".").slice(0, 2).join("."), CONTRACT_VERSION.split(".").slice(0, 2).join("."));
});

// ---- the readers, against a scripted fetch

const GAME = "01m8qhcrc96c9c2j46ep4my6k7";
const event = (id, type, fields = {}) => ({
  id,
  type,
  version: id + 1,
  game: { id: GAME, status: type === "game_finished" ? "finished" : "playing" },
  ...fields,
});
const sse = (events, retry = 1) =>
  (retry === null ? "" : `retry: ${retry}\r\n\r\n`) +
  events.map((e) => `id: ${e.id}\r\nevent: ${e.type}\r\ndata: ${JSON.stringify(e)}\r\n\r\n: keep-alive\r\n\r\n`).join("");

/** A 200 stream of `text` in chunks of `size` bytes; `fail`: the connection then breaks. */
function streamAnswer(text, { size = 7, fail = false } = {}) {
  const bytes = encoder.encode(text);
  let at = 0;
  const body = new ReadableStream({
    pull(controller) {
      if (at < bytes.length) {
        controller.enqueue(bytes.slice(at, at + size));
        at += size;
      } else if (fail) controller.error(new TypeError("terminated"));
      else controller.close();
    },
  });
  return new Response(body, { headers: { "Content-Type": "text/event-stream" } });
}

function script(...answers) {
  const requests = [];
  const fetch = async (url, init) => {
    requests.push({ url: new URL(url), headers: new Headers(init.headers) });
    const answer = answers.shift();
    assert.ok(answer, `an unexpected request to ${url}`);
    return answer();
  };
  return { fetch, requests };
}

async function collect(reader) {
  const events = [];
  for await (const item of reader) events.push(item);
  return events;
}

test("typed events in order, unknown types skipped, resumed with Last-Event-ID after a break, ended by game_finished", async () => {
  const { fetch, requests } = script(
    () => streamAnswer(sse([event(0, "game", { hand: null }), event(1, "card_played")]), { fail: true }),
    () => streamAnswer(sse([event(2, "from_a_later_version")], null)), // then closed: a restart
    () => streamAnswer(sse([event(3, "game_finished"), event(4, "card_played")])),
  );
  const events = await collect(followGame("http://coins.test/", GAME, { fetch, token: "seat-token" }));
  assert.deepEqual(events.map((e) => [e.id, e.type]), [[0, "game"], [1, "card_played"], [3, "game_finished"]]);
  assert.deepEqual(requests.map((r) => r.headers.get("Last-Event-ID")), [null, "1", "2"]);
  assert.ok(requests.every((r) => r.headers.get("Authorization") === "Bearer seat-token"));
  assert.ok(requests.every((r) => r.url.pathname === `/v1/games/${GAME}/events`));
  assert.equal(requests[0].headers.get("Accept"), "text/event-stream");
});

test("unlisted: true yields the unknown types too", async () => {
  const { fetch } = script(() => streamAnswer(sse([event(5, "from_a_later_version"), event(6, "game_finished")])));
  const events = await collect(followGame("http://coins.test", GAME, { fetch, unlisted: true, lastEventId: 4 }));
  assert.deepEqual(events.map((e) => e.type), ["from_a_later_version", "game_finished"]);
});

test("failures in a row without an event end in FeedLost; a refusal retrying cannot fix is a CoinsProblem", async () => {
  const broken = () => streamAnswer("retry: 1\n\n: keep-alive\n\n", { fail: true });
  const lost = script(broken, broken, broken);
  await assert.rejects(collect(followGame("http://coins.test", GAME, { fetch: lost.fetch, maxAttempts: 2, lastEventId: 9 })), (error) => {
    assert.ok(error instanceof FeedLost);
    assert.equal(error.lastEventId, 9);
    return true;
  });
  const problem = { type: "urn:coins:problem:game_not_found", title: "x", status: 404, detail: "No such game", code: "game_not_found" };
  const refused = script(() => Response.json(problem, { status: 404 }));
  await assert.rejects(collect(followGame("http://coins.test", GAME, { fetch: refused.fetch })), (error) => {
    assert.ok(error instanceof CoinsProblem);
    assert.equal(error.code, "game_not_found");
    return true;
  });
});

test("the long poll pages with after, and the player feed reads its own types", async () => {
  const pages = [
    { items: [event(0, "game", { hand: null })], last_id: 0 },
    { items: [], last_id: 0 }, // `wait` ran out: the reader asks whether the game is over (it is not)
    { id: GAME, status: "playing" },
    { items: [event(1, "from_a_later_version"), event(2, "game_finished")], last_id: 2 },
  ];
  const { fetch, requests } = script(...pages.map((page) => () => Response.json(page)));
  const events = await collect(followGame("http://coins.test", GAME, { fetch, longPoll: true }));
  assert.deepEqual(events.map((e) => e.id), [0, 2]);
  const polls = requests.filter((r) => r.url.pathname.endsWith("/events"));
  assert.deepEqual(polls.map((r) => r.url.searchParams.get("after")), [null, "0", "0"]);
  assert.ok(polls.every((r) => r.url.searchParams.get("wait") === "25" && r.headers.get("Accept") === "application/json"));
  assert.equal(requests[2].url.pathname, `/v1/games/${GAME}`);

  const turn = { id: 7, type: "your_turn", game: GAME, seat: 1, action: "play", version: 3, state: {}, hand: { cards: ["ace-coins"] } };
  const player = script(() => streamAnswer(sse([{ id: 6, type: "from_later" }, turn]), { size: 3 }));
  const feed = followPlayer("http://coins.test", { token: "cpk_key", fetch: player.fetch });
  const first = await feed.next();
  await feed.return(undefined);
  assert.equal(first.value.type, "your_turn");
  assert.deepEqual(first.value.hand.cards, ["ace-coins"]);
  assert.equal(player.requests[0].url.pathname, "/v1/players/me/events");
});

test("resumed after the last event of a game over, the feed ends at once (stream and long poll)", async () => {
  for (const longPoll of [false, true]) {
    const nothing = longPoll ? () => Response.json({ items: [], last_id: 3 }) : () => streamAnswer(sse([]));
    const { fetch, requests } = script(nothing, () => Response.json({ id: GAME, status: "finished" }));
    const events = await collect(followGame("http://coins.test", GAME, { fetch, longPoll, lastEventId: 3 }));
    assert.deepEqual(events, []);
    assert.deepEqual(requests.map((r) => r.url.pathname), [`/v1/games/${GAME}/events`, `/v1/games/${GAME}`]);
  }
});

test("a stream that ends with nothing new on a game in play resumes where it was", async () => {
  const { fetch, requests } = script(
    () => streamAnswer(sse([])),
    () => Response.json({ id: GAME, status: "playing" }),
    () => streamAnswer(sse([event(4, "game_finished")])),
  );
  const events = await collect(followGame("http://coins.test", GAME, { fetch, lastEventId: 3 }));
  assert.deepEqual(events.map((e) => e.id), [4]);
  assert.equal(requests[2].headers.get("Last-Event-ID"), "3");
});

test("the README shows the quickstart as it is", () => {
  const readme = readFileSync(new URL("../README.md", import.meta.url), "utf8");
  const quickstart = readFileSync(new URL("../examples/quickstart.mjs", import.meta.url), "utf8");
  assert.ok(readme.includes("```js\n" + quickstart + "```"));
});

test("the guards tell the listed events from the unlisted ones, which a page's items may hold", async () => {
  const { isListedFeedEvent, isListedPlayerEvent } = await import("../dist/index.js");
  assert.equal(isListedFeedEvent({ id: 1, type: "card_played" }), true);
  assert.equal(isListedFeedEvent({ id: 2, type: "a_type_added_later" }), false);
  assert.equal(isListedPlayerEvent({ id: 3, type: "your_turn" }), true);
  assert.equal(isListedPlayerEvent({ id: 4, type: "card_played" }), false); // a game feed's type
});
