// Parties of the browser's build in real rounds: a shuffler process with its WebSocket door
// (`shufflempc shuffler --websocket`), the analyzer process, a native party process hosting most
// parties over TCP, and parties of the WebAssembly build (web/js/party.mjs) over WebSocket, in one
// counting round and one sum round. Every party is in the result, none dropped, the message count
// is the native and browser parties' own, and the output is within six of the protocol's own
// standard deviations of the truth. Then the refusals a page meets: a key that is not the party's,
// an input out of range, a config that is not the shuffler's. Run by ctest with SHUFFLEMPC_CLI and
// SHUFFLEMPC_WEB_MODULE set (tests/CMakeLists.txt).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, after } from 'node:test';
import { loadParty } from './party_module.mjs';
import { checkRound, makeSession, removeDir, round as sessionRound, sameRecords, start } from './session.mjs';
import { FRAME, openLink, submitRound } from '../../web/js/party.mjs';

if (typeof WebSocket === 'undefined') throw new Error('this Node.js has no WebSocket: run it with --experimental-websocket (Node.js 20) or use Node.js 22');
const party = await loadParty();
after(removeDir);
// Parties in this process: the browser's build in Node.js.
const round = (args) => sessionRound({ ...args, play: (i, a) => submitRound(party, a) });

test('a counting round: browser parties over WebSocket beside native ones over TCP', async () => {
  const parties = 300, browsers = 12;
  const r = await round({ name: 'counting', protocol: 'counting', params: ['epsilon=1', 'delta=0.01'], parties, browsers,
                          inputOf: (i) => (i % 3 === 0 ? 1 : 0) });
  // Two messages a party, its bit and a noise bit: the count is exact.
  assert.equal(checkRound(r, browsers), 2 * parties);
  sameRecords(r, 2);
  const truth = r.inputs.reduce((a, b) => a + b, 0);
  // The protocol's stated standard deviation, from the browser's build of it.
  const sd = party.protocolInfo(r.config).predictedSd;
  assert.ok(typeof sd === 'number' && sd > 0);
  assert.ok(Math.abs(r.report.output - truth) <= 6 * sd, `output ${r.report.output}, truth ${truth}, sd ${sd}`);
});

test('a sum round: split-mix shares from browser parties beside native ones', async () => {
  const parties = 200, browsers = 10;
  const r = await round({ name: 'sum', protocol: 'split-mix-dp-sum', params: ['epsilon=1'], parties, browsers,
                          inputOf: (i) => (i % 10) / 10 });
  const each = r.outcomes[0].records;
  sameRecords(r, each);
  assert.ok(each >= 3);
  // Every party sends the same number of shares: the count is exact.
  assert.equal(checkRound(r, browsers), each * parties);
  const truth = r.inputs.reduce((a, b) => a + b, 0);
  const sd = party.protocolInfo(r.config).predictedSd;
  assert.ok(typeof sd === 'number' && sd > 0);
  assert.ok(Math.abs(r.report.output - truth) <= 6 * sd, `output ${r.report.output}, truth ${truth}, sd ${sd}`);
});

test('a forged key, an input out of range and another session\'s config are refused, and the round goes on', async () => {
  const s = makeSession('refusals', 'randomized-response', ['epsilon=1'], 3, 3);
  const other = makeSession('other', 'randomized-response', ['epsilon=1'], 3, 3);
  const shuffler = start(['shuffler', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'shuffler.key'),
                          '--listen', '127.0.0.1:0', '--websocket', '127.0.0.1:0']);
  const tcp = (await shuffler.line('listening on ')).split(' ').pop();
  const url = `ws://${(await shuffler.line('websocket on ')).split(' ').pop()}`;
  const analyzer = start(['analyzer', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'analyzer.key'), '--connect', tcp, '--json']);
  // Party 1's key used as party 0's: the shuffler refuses it at key confirmation.
  await assert.rejects(submitRound(party, { url, config: s.config, id: 0, secretKey: s.secrets[1], input: '1' }),
                       /the shuffler refused our keys/);
  // An input the protocol does not take: refused in the page, before any connection.
  await assert.rejects(submitRound(party, { url, config: s.config, id: 0, secretKey: s.secrets[0], input: '2' }),
                       (e) => /input/.test(e.message) && !/connect/.test(e.message));
  // Another session's config: the hello names a session and digest the shuffler does not serve.
  await assert.rejects(submitRound(party, { url, config: other.config, id: 0, secretKey: other.secrets[0], input: '1' }),
                       /the shuffler refused these identities/);
  const outcomes = await Promise.all([0, 1, 2].map((id) =>
    submitRound(party, { url, config: s.config, id, secretKey: s.secrets[id], input: String(id % 2) })));
  outcomes.forEach((o, id) => assert.deepEqual(o.result.submitted, [id]));
  const [a, sh] = await Promise.all([analyzer.exited, shuffler.exited]);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(sh.code, 0, sh.stderr);
  assert.equal(JSON.parse(a.stdout).messages, 3);
});

// A session of three parties, every one a page, with a shuffler and an analyzer running.
async function threePages(name) {
  const s = makeSession(name, 'randomized-response', ['epsilon=1'], 3, 3);
  const shuffler = start(['shuffler', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'shuffler.key'),
                          '--listen', '127.0.0.1:0', '--websocket', '127.0.0.1:0']);
  const tcp = (await shuffler.line('listening on ')).split(' ').pop();
  const url = `ws://${(await shuffler.line('websocket on ')).split(' ').pop()}`;
  const analyzer = start(['analyzer', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'analyzer.key'), '--connect', tcp, '--json']);
  const honest = (id) => submitRound(party, { url, config: s.config, id, secretKey: s.secrets[id], input: '1' });
  return { s, url, shuffler, analyzer, honest };
}

test('a record altered after its seal is carried, then discarded by the analyzer and counted', async () => {
  const { s, url, shuffler, analyzer, honest } = await threePages('tampered');
  // Party 0's page seals its record, then changes one byte of it before the frame.
  const records = party.roundRecords(s.config, 0, '1', -1);
  records.payload[4 + 10] ^= 1;  // after the payload's count: inside the sealed record
  const l = await openLink(party, { url, config: s.config, id: 0, secretKey: s.secrets[0] });
  l.send(l.link.seal(FRAME.submit, 0, records.width, records.count, records.payload));
  const [others, own] = await Promise.all([Promise.all([1, 2].map(honest)), (async () => {
    for (;;) {
      const f = await l.next();
      if (f.header.type !== FRAME.result) continue;
      l.send(l.link.seal(FRAME.done, 0, 0, 0, new Uint8Array(0)));
      return l.link.result(f.payload, 3);
    }
  })()]);
  l.close();
  // The shuffler cannot see inside a seal: it admitted all three records.
  assert.deepEqual(own.submitted, [0]);
  assert.equal(own.messages, 3);
  others.forEach((o, i) => assert.deepEqual(o.result.submitted, [i + 1]));
  const [a, sh] = await Promise.all([analyzer.exited, shuffler.exited]);
  assert.equal(sh.code, 0, sh.stderr);
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stderr, /1 message\(s\) were not sealed to this analyzer and were discarded/);
  assert.doesNotMatch(sh.stderr, /link was lost/);
});

test('a submission replayed on its link is refused as a replay, and the round keeps the first', async () => {
  const { s, url, shuffler, analyzer, honest } = await threePages('replayed');
  const records = party.roundRecords(s.config, 0, '1', -1);
  const l = await openLink(party, { url, config: s.config, id: 0, secretKey: s.secrets[0] });
  const frame = l.link.seal(FRAME.submit, 0, records.width, records.count, records.payload);
  l.send(frame);
  l.send(frame);  // the same bytes again: its sequence number was used
  await Promise.all([1, 2].map(honest));
  l.close();
  const [a, sh] = await Promise.all([analyzer.exited, shuffler.exited]);
  assert.match(sh.stderr, /party 0\): rejected: frame sequence number 1 was already used \(replay\)/);
  // Only the replaying link is missed at the end; the honest pages said they had the result.
  assert.match(sh.stderr, /party 0's link was lost before the session's last result was sent to it/);
  assert.doesNotMatch(sh.stderr, /party [12]'s link was lost/);
  assert.equal(a.code, 0, a.stderr);
  // Party 0's one record is in the output once, with the two others'.
  assert.equal(JSON.parse(a.stdout).messages, 3);
});
