"""coins_client.sse: the WHATWG event-stream interpretation, whatever the chunk boundaries."""

from __future__ import annotations

from coins_client.sse import ServerSentEvent, SSEDecoder

# A recorded stream with every rule in it: a BOM, LF, CRLF and lone CR line ends, comments (heartbeats),
# retry, a multi-line data field, a field without a colon, an unknown field, an id with NUL (ignored),
# an event without data (not dispatched), a non-ASCII character, and an event cut off by the end.
RECORDED = (
    "\ufeffretry: 2000\n"
    "\n"
    "id: 0\r\n"
    "event: game\r\n"
    'data: {"id":0,"type":"game"}\r\n'
    "\r\n"
    ": keep-alive\n"
    "\n"
    "id: 1\r"
    "event: seat_taken\r"
    "data: first line\r"
    "data:second line, no space\r"
    "data\r"
    "unknown: ignored\r"
    "\r"
    "id: 2\0bad\n"
    "event: no_data\n"
    "\n"
    "data: Aña ♣ 🂡\n"
    "retry: soon\n"
    "\n"
    "id: 3\n"
    "data: never dispatched"
).encode()

EXPECTED = [
    ServerSentEvent(event="game", data='{"id":0,"type":"game"}', id="0"),
    ServerSentEvent(event="seat_taken", data="first line\nsecond line, no space\n", id="1"),
    ServerSentEvent(event="message", data="Aña ♣ 🂡", id="1"),
]


def decode(chunks: list[bytes]) -> tuple[list[ServerSentEvent], SSEDecoder]:
    decoder = SSEDecoder()
    events = [event for chunk in chunks for event in decoder.feed(chunk)]
    return events, decoder


def test_a_recorded_stream_in_one_chunk() -> None:
    events, decoder = decode([RECORDED])
    assert events == EXPECTED
    assert decoder.retry_ms == 2000  # "soon" is not a number: ignored
    assert decoder.comments == 1
    assert decoder.last_event_id == "3"  # set, though its event never completed


def test_every_split_point_gives_the_same_events() -> None:
    # Inside a line, between CR and LF, inside a UTF-8 character: every byte boundary.
    for cut in range(len(RECORDED) + 1):
        assert decode([RECORDED[:cut], RECORDED[cut:]])[0] == EXPECTED, cut


def test_byte_by_byte() -> None:
    events, decoder = decode([RECORDED[i : i + 1] for i in range(len(RECORDED))])
    assert events == EXPECTED
    assert decoder.retry_ms == 2000


def test_three_chunks_around_a_crlf_and_a_character() -> None:
    stream = "data: ♣\r\n\r\n".encode()
    clubs = stream.index("♣".encode())
    chunks = [stream[: clubs + 1], stream[clubs + 1 : stream.index(b"\r") + 1], stream[stream.index(b"\r") + 1 :]]
    assert decode(chunks)[0] == [ServerSentEvent(event="message", data="♣", id="")]


def test_a_bom_later_in_the_stream_is_data() -> None:
    events, _ = decode([b"data: a\n\n", "data: \ufeffb\n\n".encode()])
    assert [event.data for event in events] == ["a", "\ufeffb"]


def test_one_leading_space_is_removed_from_a_value_and_only_one() -> None:
    assert decode([b"data:  two spaces\n\n"])[0] == [ServerSentEvent(event="message", data=" two spaces", id="")]
