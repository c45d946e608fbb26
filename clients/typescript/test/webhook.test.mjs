// examples/bot_player.mjs's `verify`, the Standard Webhooks check, against a delivery signed by the
// `standardwebhooks` package (Python 1.x, what the service signs with): `Webhook(secret).sign(id,
// timestamp, body)` gave SIGNATURE below. Run with `node --test test/` (after `npm run build`).
import assert from "node:assert/strict";
import { test } from "node:test";

import { verify } from "../examples/bot_player.mjs";

const SECRET = "whsec_Y29pbnMtdGVzdC1zZWNyZXQtMzItYnl0ZXMtbG9uZyE=";
const ID = "msg_2Lh9KRb0pzN4LePd3XiA4ivB8Ch";
const TIMESTAMP = 1764790000;
const BODY = Buffer.from('{"type":"your_turn","game":"01jf3v9k2m8q4r6t0w5x7y9z1a","id":7}');
const SIGNATURE = "v1,U+SaGzkTAZnS7YhNowSN/25AEWPLqFwCx+LQXei8C0c=";
const headers = (signature = SIGNATURE, timestamp = TIMESTAMP) => ({
  "webhook-id": ID,
  "webhook-timestamp": String(timestamp),
  "webhook-signature": signature,
});

test("a delivery the standardwebhooks package signed verifies, and gives its event", () => {
  assert.deepEqual(verify(SECRET, headers(), BODY, TIMESTAMP + 10), JSON.parse(BODY.toString()));
  assert.ok(verify(SECRET, headers(`v1,${"A".repeat(43)}= ${SIGNATURE}`), BODY, TIMESTAMP)); // one of several
});

test("anything else is refused", () => {
  assert.equal(verify(SECRET, headers(), Buffer.from(BODY.toString().replace("7", "8")), TIMESTAMP), null); // body changed
  assert.equal(verify("whsec_" + Buffer.from("another secret").toString("base64"), headers(), BODY, TIMESTAMP), null);
  assert.equal(verify(SECRET, headers(SIGNATURE.replace("v1,", "v2,")), BODY, TIMESTAMP), null); // not v1
  assert.equal(verify(SECRET, headers(SIGNATURE, TIMESTAMP + 1)), null); // the timestamp is signed too
  assert.equal(verify(SECRET, headers(), BODY, TIMESTAMP + 301), null); // older than five minutes: a replay
  assert.equal(verify(SECRET, headers(), BODY, TIMESTAMP - 301), null);
  assert.equal(verify(SECRET, { "webhook-timestamp": String(TIMESTAMP), "webhook-signature": SIGNATURE }, BODY, TIMESTAMP), null);
  assert.equal(verify(SECRET, headers("v1,short"), BODY, TIMESTAMP), null);
});
