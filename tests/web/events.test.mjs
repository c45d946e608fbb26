// The browser's event stream (service/web/js/events.js): the SSE parser, and following a game with resume.

import assert from "node:assert/strict";
import { test } from "node:test";

import { SseParser, followGame, readMessages } from "../../service/web/js/events.js";

test("a message has its id, event and data; comments and retry are skipped", () => {
  const parser = new SseParser();
  const text = ': keep-alive\n\nretry: 1000\nid: 7\nevent: card_played\ndata: {"id": 7}\n\n';
  assert.deepEqual(parser.feed(text), [{ id: "7", event: "card_played", data: '{"id": 7}' }]);
});

test("text split anywhere, even inside a CRLF, gives the same messages", () => {
  const text = 'id: 1\r\nevent: game\r\ndata: {"a":\r\ndata: 1}\r\n\r\nid: 2\r\ndata: x\r\n\r\n';
  for (let at = 0; at <= text.length; at += 1) {
    const parser = new SseParser();
    const messages = [...parser.feed(text.slice(0, at)), ...parser.feed(text.slice(at))];
    assert.deepEqual(
      messages.map((message) => [message.id, message.data]),
      [["1", '{"a":\n1}'], ["2", "x"]],
      `split at ${at}`,
    );
  }
});

test("a message without data is not dispatched; the id carries over", () => {
  const parser = new SseParser();
  assert.deepEqual(parser.feed("id: 3\n\n"), []);
});

test("readMessages decodes a byte stream cut inside a multi-byte character", async () => {
  const bytes = new TextEncoder().encode('id: 1\ndata: {"name": "Zoë 杯子"}\n\n');
  const body = new ReadableStream({
    start(controller) {
      controller.enqueue(bytes.slice(0, 22));
      controller.enqueue(bytes.slice(22));
      controller.close();
    },
  });
  const messages = [];
  for await (const message of readMessages(body)) messages.push(message);
  assert.deepEqual(messages, [{ id: "1", event: "message", data: '{"name": "Zoë 杯子"}' }]);
});

/** A fetch that answers each call with the next of `bodies` as an SSE stream, recording the headers sent. */
function fakeFetch(bodies) {
  const calls = [];
  const fetch = async (url, options) => {
    calls.push({ url, headers: options.headers });
    const text = bodies[calls.length - 1] ?? "";
    return new Response(text, { status: 200, headers: { "Content-Type": "text/event-stream" } });
  };
  return { fetch, calls };
}

const event = (id, type, status) => `id: ${id}\nevent: ${type}\ndata: ${JSON.stringify({ id, type, version: id, game: { status } })}\n\n`;

test("followGame sends the token in a header, resumes after the last id, and stops once the game is finished", async () => {
  const { fetch, calls } = fakeFetch([event(1, "game", "playing") + event(2, "card_played", "playing"), event(3, "game_finished", "finished")]);
  globalThis.fetch = fetch;
  const seen = [];
  const ended = new Promise((resolve) => {
    followGame("g1", { token: "secret", onEvent: (item) => seen.push(item.id), onStatus: (status) => status === "ended" && resolve() });
  });
  await ended;
  assert.deepEqual(seen, [1, 2, 3]);
  assert.equal(calls.length, 2);
  assert.equal(calls[0].url, "/v1/games/g1/events");
  assert.equal(calls[0].headers.Authorization, "Bearer secret");
  assert.equal(calls[0].headers["Last-Event-ID"], undefined);
  assert.equal(calls[1].headers["Last-Event-ID"], "2");
  assert.ok(calls.every((call) => !call.url.includes("secret")));
});

test("a resume the feed cannot take (unknown_event_id) starts again from the whole state, at once", async () => {
  const problem = JSON.stringify({ code: "unknown_event_id", status: 400, detail: "no event of game g1 has the id 2 (its last is 1)" });
  const answers = [
    new Response(event(1, "game", "playing") + event(2, "card_played", "playing"), { status: 200 }),
    new Response(problem, { status: 400, headers: { "Content-Type": "application/problem+json" } }),
    new Response(event(1, "game", "playing") + event(2, "game_finished", "finished"), { status: 200 }),
  ];
  const calls = [];
  globalThis.fetch = async (url, options) => (calls.push(options.headers), answers[calls.length - 1]);
  const seen = [];
  const statuses = [];
  await new Promise((resolve) => {
    followGame("g1", {
      onEvent: (item) => seen.push(`${item.type} ${item.id}`),
      onStatus: (status, problemSeen) => (statuses.push(problemSeen?.code ?? status), status === "ended" && resolve()),
    });
  });
  assert.deepEqual(seen, ["game 1", "card_played 2", "game 1", "game_finished 2"]);
  assert.deepEqual(calls.map((headers) => headers["Last-Event-ID"]), [undefined, "2", undefined]);
  assert.ok(!statuses.includes("unknown_event_id"), "the refusal is not shown as the stream's end");
  assert.equal(statuses.at(-1), "ended");
});
