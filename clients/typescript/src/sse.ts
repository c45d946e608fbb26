/**
 * A Server-Sent Events decoder, as the WHATWG HTML standard's "event stream interpretation" says.
 *
 * Bytes in, in chunks of any size (a chunk may end inside a line, inside a CRLF or inside a UTF-8
 * character); events out, each once its blank line has arrived. Lines end with CRLF, LF or CR.
 * `data` lines of one event are joined with LF; `id` sets the last event id (kept across events,
 * ignored when it holds NUL); `retry` sets the reconnection time in milliseconds (ASCII digits
 * only); a line starting with `:` is a comment (a heartbeat). An event without data is not
 * dispatched, nor is one the stream ends before its blank line.
 */

/** One dispatched event: its type (`message` unless the stream named one), data and last event id. */
export interface ServerSentEvent {
  event: string;
  data: string;
  id: string;
}

export class SSEDecoder {
  private readonly text = new TextDecoder("utf-8"); // `stream: true` keeps a character split across chunks
  private line = "";
  private afterCR = false; // the last character was CR: an LF right after it ends nothing
  private first = true; // a BOM is skipped at the stream's very start only
  private eventType = "";
  private data: string[] = [];
  /** The last event id the stream set ("" until one). */
  lastEventId = "";
  /** The server's reconnection time in milliseconds, once it sent one. */
  retryMs: number | null = null;
  /** Comment lines seen (the server's heartbeats). */
  comments = 0;

  /** The events completed by `chunk`. */
  feed(chunk: Uint8Array): ServerSentEvent[] {
    let text = this.text.decode(chunk, { stream: true });
    if (this.first && text.length > 0) {
      this.first = false;
      if (text.startsWith("\ufeff")) text = text.slice(1);
    }
    const events: ServerSentEvent[] = [];
    let start = 0;
    for (let index = 0; index < text.length; index++) {
      const character = text[index];
      if (character !== "\r" && character !== "\n") continue;
      if (character === "\n" && this.afterCR && index === start) {
        this.afterCR = false; // the LF of a CRLF
        start = index + 1;
        continue;
      }
      this.afterCR = character === "\r";
      const event = this.takeLine(this.line + text.slice(start, index));
      this.line = "";
      start = index + 1;
      if (event !== null) events.push(event);
    }
    if (start < text.length) {
      this.afterCR = false;
      this.line += text.slice(start);
    }
    return events;
  }

  private takeLine(line: string): ServerSentEvent | null {
    if (line === "") return this.dispatch();
    if (line.startsWith(":")) {
      this.comments += 1;
      return null;
    }
    const colon = line.indexOf(":");
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? "" : line.slice(colon + 1);
    if (value.startsWith(" ")) value = value.slice(1);
    if (field === "event") this.eventType = value;
    else if (field === "data") this.data.push(value);
    else if (field === "id" && !value.includes("\0")) this.lastEventId = value;
    else if (field === "retry" && /^[0-9]+$/.test(value)) this.retryMs = Number(value);
    return null; // any other field (or an id with NUL, a retry not all digits) is ignored
  }

  private dispatch(): ServerSentEvent | null {
    const { data, eventType } = this;
    this.data = [];
    this.eventType = "";
    if (data.length === 0) return null;
    return { event: eventType || "message", data: data.join("\n"), id: this.lastEventId };
  }
}
