// The browser's build (web/, WebAssembly) against the native build's known answers: the same
// inputs give the same hello, confirm frame and sealed submit frame, byte for byte
// (tests/web/link_vectors.json, which tests/net/test_link_crypto.cpp checks natively), and the
// refusals a page must show come back as errors. Run by ctest with SHUFFLEMPC_WEB_MODULE set to the
// built shufflempc-party.mjs.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { loadParty, hex, unhex } from './party_module.mjs';

const vectors = JSON.parse(readFileSync(new URL('./link_vectors.json', import.meta.url)));
const party = await loadParty();

function link(v) {
  return new party.Link(v.session, v.config, v.id, v.party_secret, v.shuffler_public, v.client_seed);
}

test('the hello, the confirm frame and a submit frame are the native build\'s bytes', () => {
  const l = link(vectors);
  assert.equal(hex(l.hello()), vectors.hello);
  assert.equal(party.publicKeyOf(vectors.shuffler_secret), vectors.shuffler_public);
  const confirm = l.finish(unhex(vectors.reply));
  assert.equal(confirm.error, undefined);
  assert.equal(hex(confirm), vectors.confirm);
  const submit = l.seal(2, vectors.submit_round, vectors.submit_width, vectors.submit_count, unhex(vectors.submit_payload));
  assert.equal(hex(submit), vectors.submit);
  assert.equal(hex(party.submitPayload(2, unhex('0102030405060708'))), vectors.submit_payload);
});

test('a reply for another session or from no shuffler is refused with the native message', () => {
  const other = unhex(vectors.reply);
  other[8] ^= 1;
  assert.match(link(vectors).finish(other).error, /^handshake: the shuffler answered for another session/);
  const alien = unhex(vectors.reply);
  alien[0] ^= 1;
  assert.match(link(vectors).finish(alien).error, /not a shufflempc shuffler of this version/);
  assert.match(link(vectors).finish(unhex(vectors.reply).subarray(0, 10)).error, /reply of the wrong size/);
});

test('a frame the shuffler did not seal does not open', () => {
  const l = link(vectors);
  l.finish(unhex(vectors.reply));
  // The client's own submit frame is sealed under the other direction's key: it is not the shuffler's.
  const submit = unhex(vectors.submit);
  const opened = l.openPrefix(submit.subarray(0, party.prefixBytes));
  assert.match(opened.error, /skips ahead|failed authentication/);
});

test('sealing to the analyzer gives records of the width plus 48 bytes, fresh each time', () => {
  const messages = unhex('00010203' + '04050607');
  const a = party.sealToAnalyzer(messages, 4, vectors.shuffler_public);
  const b = party.sealToAnalyzer(messages, 4, vectors.shuffler_public);
  assert.equal(a.length, 2 * (4 + 48));
  assert.notEqual(hex(a), hex(b));
  assert.match(party.sealToAnalyzer(messages, 3, vectors.shuffler_public).error, /whole number/);
  assert.match(party.sealToAnalyzer(messages, 4, 'abcd').error, /analyzer's public key/);
});
