// Parties of the browser's build in real rounds: a shuffler process with its WebSocket door
// (`shufflempc shuffler --websocket`), the analyzer process, a native party process hosting most
// parties over TCP, and parties of the WebAssembly build (web/js/party.mjs) over WebSocket, in one
// counting round and one sum round, and through a 3-server onion chain and a verifiable chain
// (each page checks the entry's receipt and sends its verdict to the analyzer's door; the
// verifiable chain's transcript verifies). Every party is in the result, none dropped, the message
// count is the native and browser parties' own, and the output is within 6.5 of the protocol's own
// standard deviations of the truth. Then the refusals a page meets: a key that is not the party's,
// an input out of range, a config that is not the shuffler's; an entry that drops a page's record
// (the page complains, the analyzer outputs nothing). Run by ctest with SHUFFLEMPC_CLI and
// SHUFFLEMPC_WEB_MODULE set (tests/CMakeLists.txt).
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { test, after } from 'node:test';
import { loadParty } from './party_module.mjs';
import { execFileSync } from 'node:child_process';
import { checkAltered, checkEstimate, checkReplayed, checkRound, makeSession, removeDir, round as sessionRound, sameRecords, start, threePages }
  from './session.mjs';
import { alteredRecord, replayedSubmit } from './tampering.mjs';
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
  checkEstimate(r, party.protocolInfo(r.config).predictedSd);
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
  checkEstimate(r, party.protocolInfo(r.config).predictedSd);
});

// Through a chain the page checks the entry's receipt of its records with the library's code and
// sends its verdict to the analyzer's door, as a native party does: the analyzer outputs the round
// only with every submitting party's confirmation.
for (const mix of ['onion', 'verifiable']) {
  test(`a 3-server ${mix} chain: browser parties beside native ones, every page's receipt confirmed to the analyzer`, async () => {
    const parties = mix === 'onion' ? 60 : 24, browsers = mix === 'onion' ? 6 : 4;
    const r = await round({ name: `chain-${mix}`, protocol: 'randomized-response', params: ['epsilon=1'], parties, browsers,
                            inputOf: (i) => (i % 4 === 0 ? 1 : 0), chain: { servers: 3, mix } });
    assert.equal(checkRound(r, browsers), parties);
    r.outcomes.forEach((o) => assert.deepEqual(o.verdict, { confirmed: true, reason: '', delivered: true }));
    assert.equal(r.report.messages, parties);
    checkEstimate(r, party.protocolInfo(r.config).predictedSd);
    if (mix === 'verifiable') {
      // The transcript of the round the pages took part in verifies against its session.
      const out = execFileSync(process.env.SHUFFLEMPC_CLI, ['verify', join(r.dir, 'transcript.json'), '--config', join(r.dir, 'session.json')],
                               { encoding: 'utf8' });
      assert.match(out, /verified/);
    }
  });
}

test('through a chain, an entry that drops a page\'s record: the page\'s receipt shows it, its complaint reaches the analyzer, which outputs nothing', async () => {
  const s = makeSession('chain-dropped', 'randomized-response', ['epsilon=1'], 3, 3, { servers: 3, mix: 'onion' });
  const hops = [];
  for (const h of [1, 2]) {
    const m = start(['mix-server', '--config', join(s.d, 'session.json'), '--key', join(s.d, `mix-${h}.key`), '--listen', '127.0.0.1:0']);
    hops.push({ m, at: (await m.line('listening on ')).split(' ').pop() });
  }
  // The entry drops the first record it admitted before committing to the batch (the n - 1 attack).
  const shuffler = start(['shuffler', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'shuffler.key'), '--listen', '127.0.0.1:0',
                          '--websocket', '127.0.0.1:0', '--hop-addresses', hops.map((h) => h.at).join(','), '--fault-entry', 'drop']);
  const tcp = (await shuffler.line('listening on ')).split(' ').pop();
  const url = `ws://${(await shuffler.line('websocket on ')).split(' ').pop()}`;
  const analyzer = start(['analyzer', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'analyzer.key'), '--connect', tcp,
                          '--listen', '127.0.0.1:0', '--websocket', '127.0.0.1:0']);
  const analyzerUrl = `ws://${(await analyzer.line('websocket on ')).split(' ').pop()}`;
  const outcomes = await Promise.all([0, 1, 2].map((id) =>
    submitRound(party, { url, analyzerUrl, config: s.config, id, secretKey: s.secrets[id], input: '1' })));
  // One page's record was dropped: its receipt does not hold, and it says so; the others confirm
  // (their verdicts may find the analyzer gone already: it refuses the round at the complaint).
  const complaints = outcomes.filter((o) => !o.verdict.confirmed);
  assert.equal(complaints.length, 1);
  assert.equal(complaints[0].verdict.delivered, true);
  outcomes.filter((o) => o.verdict.confirmed && !o.verdict.delivered).forEach((o) => assert.match(o.verdict.error, /could not reach the analyzer/));
  assert.match(complaints[0].verdict.reason, /gave a receipt that does not hold: .*\(party [012]\)/);
  const a = await analyzer.exited;
  assert.notEqual(a.code, 0);
  assert.match(a.stderr, /round 0: party [012] complains that the chain's entry \(the shuffler\) gave a receipt that does not hold: record 0 of those submitted is not in the batch the entry committed to .*the analyzer refuses the round and outputs nothing for it/);
  assert.doesNotMatch(a.stdout, /output/);
  await Promise.all([shuffler.exited, ...hops.map((h) => h.m.exited)]);
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

const pieces = { openLink, FRAME };
const play = (id, a) => submitRound(party, a);

test('a record altered after its seal is carried, then discarded by the analyzer and counted', async () => {
  checkAltered(await threePages('tampered', play, (a) => alteredRecord(party, pieces, a)));
});

test('a submission replayed on its link is refused as a replay, and the round keeps the first', async () => {
  checkReplayed(await threePages('replayed', play, (a) => replayedSubmit(party, pieces, a)));
});
