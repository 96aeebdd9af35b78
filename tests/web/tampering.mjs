// A party that breaks the rules, for the browser tests: its sealed record altered after the seal,
// or its submit frame sent twice on one link. The same code runs in Node.js and in a page of
// Chromium, so the library's pieces come in as arguments ({openLink, FRAME} of web/js/party.mjs).

// Seals its record, changes one byte of it, submits it, and reads the round's result (saying done).
export async function alteredRecord(party, { openLink, FRAME }, { url, config, id, secretKey }) {
  const records = party.roundRecords(config, id, '1', secretKey, -1);
  records.payload[4 + 10] ^= 1;  // after the payload's count: inside the sealed record
  const l = await openLink(party, { url, config, id, secretKey });
  try {
    l.send(l.link.seal(FRAME.submit, 0, records.width, records.count, records.payload));
    for (;;) {
      const f = await l.next();
      if (f.header.type !== FRAME.result) continue;
      l.send(l.link.seal(FRAME.done, 0, 0, 0, new Uint8Array(0)));
      return l.link.result(f.payload, party.sessionInfo(config).parties);
    }
  } finally {
    l.close();
  }
}

// Sends the same submit frame twice (its sequence number used again), then reads until the round's
// result or the link's end, and leaves without saying done. Resolves with what ended it.
export async function replayedSubmit(party, { openLink, FRAME }, { url, config, id, secretKey }) {
  const records = party.roundRecords(config, id, '1', secretKey, -1);
  const l = await openLink(party, { url, config, id, secretKey });
  try {
    const frame = l.link.seal(FRAME.submit, 0, records.width, records.count, records.payload);
    l.send(frame);
    l.send(frame);
    for (;;) if ((await l.next()).header.type === FRAME.result) return 'the result';
  } catch (e) {
    return e.message;
  } finally {
    l.close();
  }
}
