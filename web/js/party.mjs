// A party of a session in a web page (or in Node.js with a WebSocket): its round's records, its
// link's handshake and frames are the library's own code (the WebAssembly module, createShufflempc
// of shufflempc-party.mjs); this file only moves their bytes over a WebSocket to the shuffler's
// door (`shufflempc shuffler --websocket`) and reads what comes back.
//
//   const party = await createShufflempc();
//   const outcome = await submitRound(party, {url, config, id, secretKey, input});
//
// `config` is the session config's JSON text, `input` the party's input as JSON text (as
// `shufflempc party --input` reads it). Resolves to {records, width, timings, result: {messages,
// submitted, dropped}}; rejects with an Error whose message is the library's (a refused handshake,
// an input out of range) or the connection's. With `leaveAfterReceipt` (a collection round whose
// shuffler keeps a state directory, as `party --leave-after-receipt`), it resolves once the
// shuffler's signed receipt of the batch has come and been checked, with {receipt: {digest,
// signature, file}} in place of the result. Through a chain of mix servers (`analyzerUrl`: the
// analyzer's WebSocket door, `analyzer --websocket`) the outcome has the party's verdict on the
// entry's receipt too: {confirmed, reason, delivered[, error]}.

export const FRAME = { confirm: 1, submit: 2, result: 3, abort: 4, done: 11, verdict: 12, admitted: 16 };

function check(value) {
  if (value && typeof value === 'object' && typeof value.error === 'string') throw new Error(value.error);
  return value;
}

// Bytes from a WebSocket as a stream: read(n) resolves with the next n bytes.
class ByteStream {
  constructor(ws) {
    this.chunks = [];
    this.length = 0;
    this.waiting = null;
    this.closed = null;
    ws.addEventListener('message', (e) => {
      this.chunks.push(new Uint8Array(e.data));
      this.length += e.data.byteLength;
      this.wake();
    });
    ws.addEventListener('close', (e) => {
      this.closed = `the connection closed (code ${e.code}${e.reason ? ', ' + e.reason : ''})`;
      this.wake();
    });
    ws.addEventListener('error', () => {
      this.closed = 'the connection failed';
      this.wake();
    });
  }
  wake() {
    if (this.waiting) this.waiting();
  }
  async read(n, what) {
    while (this.length < n) {
      if (this.closed) throw new Error(`${this.closed} while waiting for ${what}`);
      await new Promise((resolve) => { this.waiting = resolve; });
      this.waiting = null;
    }
    const out = new Uint8Array(n);
    let at = 0;
    while (at < n) {
      const head = this.chunks[0];
      const take = Math.min(head.length, n - at);
      out.set(head.subarray(0, take), at);
      at += take;
      if (take === head.length) this.chunks.shift();
      else this.chunks[0] = head.subarray(take);
    }
    this.length -= n;
    return out;
  }
}

async function readFrame(party, link, stream) {
  const header = check(link.openPrefix(await stream.read(party.prefixBytes, 'a frame')));
  const payload = check(link.openPayload(await stream.read(header.payloadLength + party.tagBytes, 'a frame\'s payload')));
  return { header, payload };
}

function open(url, timeoutMs) {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url);
    ws.binaryType = 'arraybuffer';
    const timer = setTimeout(() => { ws.close(); reject(new Error(`no connection to ${url} within ${timeoutMs} ms`)); }, timeoutMs);
    ws.addEventListener('open', () => { clearTimeout(timer); resolve(ws); }, { once: true });
    ws.addEventListener('error', () => { clearTimeout(timer); reject(new Error(`cannot connect to ${url}`)); }, { once: true });
  });
}

// An authenticated link to the shuffler over its WebSocket door (or, with peer 'analyzer', to the
// analyzer's, which takes the parties' verdicts on a chain's rounds), for party `id` of the session
// whose config is `config` (JSON text). Resolves once both sides confirmed their keys to
// {info, link, send(bytes), next() (the next frame: {header, payload}), close()}.
export async function openLink(party, { url, config, id, secretKey, timeoutMs = 30000, seed = -1, peer = 'shuffler' }) {
  const info = check(party.sessionInfo(config));
  const link = new party.Link(info.session, info.digest, id, secretKey, peer === 'analyzer' ? info.analyzerKey : info.shufflerKey, seed);
  let ws = null;
  const deadline = setTimeout(() => ws && ws.close(), timeoutMs);
  const close = () => {
    clearTimeout(deadline);
    if (ws) ws.close();
    link.delete();
  };
  try {
    ws = await open(url, timeoutMs);
    const stream = new ByteStream(ws);
    ws.send(link.hello());
    // A shuffler that refuses closes the connection, as it does over TCP: the same words as a
    // native party's for each step.
    const reply = await stream.read(party.helloReplyBytes, `the ${peer}'s handshake reply`).catch(() => {
      throw new Error(`the ${peer} refused these identities (are this session and this party's id in its session config, and is the config the same?)`);
    });
    ws.send(check(link.finish(reply)));
    const confirm = await readFrame(party, link, stream).catch((e) => {
      if (stream.closed) throw new Error(`the ${peer} refused our keys (is this key the one the session config gives this party?)`);
      throw e;
    });
    if (confirm.header.type === FRAME.abort)
      throw new Error(`the ${peer} refused this connection: ` + new TextDecoder().decode(confirm.payload));
    if (confirm.header.type !== FRAME.confirm) throw new Error('handshake: expected a confirm frame');
    return { info, link, send: (bytes) => ws.send(bytes), next: () => readFrame(party, link, stream), close };
  } catch (e) {
    close();
    throw e;
  }
}

// The party's verdict frame on a link to the analyzer's door; closed once sent (the socket sends it
// before its close).
async function sendVerdict(party, { url, config, id, secretKey, timeoutMs, seed, round, verdict }) {
  const a = await openLink(party, { url, config, id, secretKey, timeoutMs, seed, peer: 'analyzer' });
  try {
    a.send(check(a.link.seal(FRAME.verdict, round, 0, 1, verdict.payload)));
  } finally {
    a.close();
  }
}

export async function submitRound(party, { url, config, id, secretKey, input, timeoutMs = 30000, seed = -1, leaveAfterReceipt = false,
                                           analyzerUrl = null }) {
  const started = performance.now();
  const records = check(party.roundRecords(config, id, input, secretKey, seed));
  const chained = check(party.sessionInfo(config)).hops > 0;
  if (chained && !analyzerUrl)
    throw new Error('this session\'s records cross a chain of mix servers: the party sends its verdict on the entry\'s receipt to the analyzer (analyzerUrl: the analyzer\'s WebSocket door, analyzer --websocket)');
  const sealed = performance.now();
  const l = await openLink(party, { url, config, id, secretKey, timeoutMs, seed });
  try {
    l.send(check(l.link.seal(FRAME.submit, 0, records.width, records.count, records.payload)));
    const submitted = performance.now();
    for (;;) {
      const { header, payload } = await l.next();
      if (header.type === FRAME.abort) throw new Error('the shuffler ended the session: ' + new TextDecoder().decode(payload));
      if (header.type === FRAME.admitted && leaveAfterReceipt) {
        // The library checks it: the digest is this batch's, the signature the config's shuffler's.
        const receipt = check(party.admissionReceipt(config, id, header.round, records.width, records.payload, payload));
        return { records: records.count, width: records.width, receipt,
                 timings: { sealMs: sealed - started, submitMs: submitted - started, receiptMs: performance.now() - started } };
      }
      if (header.type !== FRAME.result) continue;  // an admission receipt (a shuffler with a state directory)
      const result = check(l.link.result(payload, l.info.parties));
      // The session's last result arrived (its one round's): said, as a native party says it, so
      // that the shuffler holds it for a reconnection no longer. The socket sends it before closing.
      l.send(check(l.link.seal(FRAME.done, header.round, 0, 0, new Uint8Array(0))));
      // Through a chain (after the done: the shuffler ends the session once the analyzer, which
      // waits for this verdict, confirms, and must not wait for this page meanwhile): the receipt of
      // the entry checked by the library, and the verdict sent to
      // the analyzer on a link of its own, as a native party sends it (no confirmation: no output).
      // One that cannot reach the analyzer (it has ended the round already, say) is said in the
      // outcome, as a native party logs it: without the confirmation the analyzer outputs nothing.
      const verdict = chained ? check(l.link.verdict(payload, l.info.parties, config, id, records.payload)) : null;
      let delivery = null;
      if (verdict) {
        delivery = { delivered: true };
        await sendVerdict(party, { url: analyzerUrl, config, id, secretKey, timeoutMs, seed, round: header.round, verdict })
          .catch((e) => { delivery = { delivered: false, error: `the verdict could not reach the analyzer (${e.message})` }; });
      }
      return {
        records: records.count,
        width: records.width,
        result,
        verdict: verdict && { confirmed: verdict.confirmed, reason: verdict.reason, ...delivery },
        timings: { sealMs: sealed - started, submitMs: submitted - started, resultMs: performance.now() - started },
      };
    }
  } finally {
    l.close();
  }
}
