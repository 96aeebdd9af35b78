// Sessions of real processes for the tests of parties in a browser: keys and a session config
// made with the command line, a shuffler with its WebSocket door, the analyzer and a native party
// process, started and waited for. Used by websocket_round.mjs (parties in Node.js) and
// chromium_round.mjs (parties in pages of headless Chromium).
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

const cli = process.env.SHUFFLEMPC_CLI;
if (!cli) throw new Error('SHUFFLEMPC_CLI: the path of the built shufflempc');
export const dir = mkdtempSync(join(tmpdir(), 'shufflempc-web-'));
export const removeDir = () => rmSync(dir, { recursive: true, force: true });

const run = (...args) => execFileSync(cli, args, { cwd: dir, encoding: 'utf8' });

// A process whose stdout lines are read as they come; `exited` resolves with its code and output.
export function start(args) {
  const child = spawn(cli, args, { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let stderr = '';
  let notify = null;
  createInterface({ input: child.stdout }).on('line', (line) => { lines.push(line); if (notify) notify(); });
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve({ code, stdout: lines.join('\n'), stderr })));
  const line = async (prefix) => {
    for (;;) {
      const found = lines.find((l) => l.startsWith(prefix));
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`${args[0]} exited before printing '${prefix}': ${stderr}`);
      await new Promise((resolve) => { notify = resolve; setTimeout(resolve, 1000); });
    }
  };
  return { child, exited, line };
}

// Keys: browser parties 0 .. browsers-1 each with a key file, the native parties in one bundle.
// With `chain` ({servers, mix: 'onion' or 'verifiable'}): the shuffler and servers - 1 further mix
// servers, each with its token, in the session's chain.
export function makeSession(name, protocol, params, parties, browsers, chain = null) {
  const d = join(dir, name);
  mkdirSync(d);
  const verifiable = chain && chain.mix === 'verifiable' ? ['--verifiable'] : [];
  const server = chain ? ['--mix-server', ...verifiable] : [];
  const tokens = [run('keygen', ...server, '-o', join(d, 'shuffler.key')).trim()];
  for (let h = 1; chain && h < chain.servers; ++h) tokens.push(run('keygen', ...server, '-o', join(d, `mix-${h}.key`)).trim());
  run('keygen', '-o', join(d, 'analyzer.key'));
  const publics = [];
  const secrets = [];
  for (let i = 0; i < browsers; ++i) {
    const file = join(d, `party-${i}.key`);
    publics.push(run('keygen', '-o', file).trim());
    secrets.push(JSON.parse(readFileSync(file, 'utf8')).secret_key);
  }
  if (browsers < parties)
    publics.push(...run('keygen', '--parties', `${browsers}-${parties - 1}`, '-o', join(d, 'bundle.json')).trim().split('\n'));
  writeFileSync(join(d, 'party-keys.txt'), publics.join('\n') + '\n');
  const mix = chain ? ['--mix-server-keys', tokens.join(','), ...(verifiable.length ? ['--mix', 'verifiable'] : [])] : [];
  run('session', '-p', protocol, ...params.flatMap((p) => ['--param', p]), '--shuffler-key', join(d, 'shuffler.key'),
      '--analyzer-key', join(d, 'analyzer.key'), '--party-keys', join(d, 'party-keys.txt'), ...mix, '-o', join(d, 'session.json'));
  return { d, secrets, config: readFileSync(join(d, 'session.json'), 'utf8') };
}

// A round of `parties`, the first `browsers` of them played by `play(i, {url, config, secretKey,
// input, analyzerUrl})` (a promise of its outcome), the rest by one native party process over TCP.
// With `chain`: the further mix servers' processes, the shuffler as the chain's entry, and the
// analyzer taking the parties' verdicts on a port of its own and its WebSocket door (analyzerUrl);
// through a verifiable chain it writes the transcript (transcript.json in the session's folder).
export async function round({ name, protocol, params, parties, browsers, inputOf, play, chain = null }) {
  assert.ok(browsers < parties, 'a round here has native parties too');
  const s = makeSession(name, protocol, params, parties, browsers, chain);
  const hops = [];
  for (let h = 1; chain && h < chain.servers; ++h) {
    const m = start(['mix-server', '--config', join(s.d, 'session.json'), '--key', join(s.d, `mix-${h}.key`), '--listen', '127.0.0.1:0']);
    hops.push({ process: m, address: (await m.line('listening on ')).split(' ').pop() });
  }
  const shuffler = start(['shuffler', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'shuffler.key'),
                          '--listen', '127.0.0.1:0', '--websocket', '127.0.0.1:0',
                          ...(hops.length ? ['--hop-addresses', hops.map((h) => h.address).join(',')] : [])]);
  const tcp = (await shuffler.line('listening on ')).split(' ').pop();
  const ws = (await shuffler.line('websocket on ')).split(' ').pop();
  const verdicts = chain ? ['--listen', '127.0.0.1:0', '--websocket', '127.0.0.1:0'] : [];
  const transcript = chain && chain.mix === 'verifiable' ? ['--transcript', join(s.d, 'transcript.json')] : [];
  const analyzer = start(['analyzer', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'analyzer.key'), '--connect', tcp, '--json',
                          ...verdicts, ...transcript]);
  const analyzerTcp = chain ? (await analyzer.line('listening on ')).split(' ').pop() : null;
  const analyzerUrl = chain ? `ws://${(await analyzer.line('websocket on ')).split(' ').pop()}` : null;
  const inputs = [];
  for (let i = 0; i < parties; ++i) inputs.push(inputOf(i));
  writeFileSync(join(s.d, 'inputs.json'), JSON.stringify(inputs.slice(browsers)));
  const natives = start(['party', '--config', join(s.d, 'session.json'), '--id', `${browsers}-${parties - 1}`,
                         '--key-bundle', join(s.d, 'bundle.json'), '--inputs', join(s.d, 'inputs.json'), '--connect', tcp,
                         ...(chain ? ['--analyzer', analyzerTcp] : [])]);
  const pages = [];
  for (let i = 0; i < browsers; ++i)
    pages.push(play(i, { url: `ws://${ws}`, config: s.config, id: i, secretKey: s.secrets[i], input: JSON.stringify(inputs[i]), analyzerUrl }));
  const outcomes = await Promise.all(pages);
  const [a, n, sh] = await Promise.all([analyzer.exited, natives.exited, shuffler.exited]);
  const servers = await Promise.all(hops.map((h) => h.process.exited));
  assert.equal(n.code, 0, n.stderr);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(sh.code, 0, sh.stderr);
  servers.forEach((m) => assert.equal(m.code, 0, m.stderr));
  // Every page said it had the session's last result, as a native party does: none is waited for.
  assert.doesNotMatch(sh.stderr, /link was lost/);
  // The report is the analyzer's last line (before it: where it listens, and its door).
  return { outcomes, report: JSON.parse(a.stdout.trim().split('\n').pop()), inputs, config: s.config, dir: s.d, analyzerLog: a.stderr };
}

// Each page's link hears of its own party only: submitted, not dropped; every page is told the
// round's whole message count, which is returned.
export function checkRound({ outcomes }, browsers) {
  assert.equal(outcomes.length, browsers);
  outcomes.forEach((o, id) => {
    assert.deepEqual(o.result.submitted, [id]);
    assert.deepEqual(o.result.dropped, []);
    assert.equal(o.result.messages, outcomes[0].result.messages);
  });
  return outcomes[0].result.messages;
}

// Every page's party sent `each` records.
export function sameRecords(r, each) {
  for (const o of r.outcomes) assert.equal(o.records, each);
}

// The round's output within 6.5 of the protocol's stated standard deviations (`sd`) of the truth,
// the inputs' sum: a correct round fails it with probability below 1e-10.
export function checkEstimate(r, sd) {
  const truth = r.inputs.reduce((a, b) => a + b, 0);
  assert.ok(typeof sd === 'number' && sd > 0, `the protocol states no standard deviation: ${sd}`);
  assert.ok(Math.abs(r.report.output - truth) <= 6.5 * sd, `output ${r.report.output}, truth ${truth}, sd ${sd}`);
}

// Three parties, every one a page, with a shuffler and an analyzer running: party 0 breaks a rule
// (`rogue(args)`, tampering.mjs run where the caller runs pages), parties 1 and 2 are honest
// (`play(id, args)`). Returns party 0's outcome, the others', and the two servers' exits.
export async function threePages(name, play, rogue) {
  const s = makeSession(name, 'randomized-response', ['epsilon=1'], 3, 3);
  const shuffler = start(['shuffler', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'shuffler.key'),
                          '--listen', '127.0.0.1:0', '--websocket', '127.0.0.1:0']);
  const tcp = (await shuffler.line('listening on ')).split(' ').pop();
  const url = `ws://${(await shuffler.line('websocket on ')).split(' ').pop()}`;
  const analyzer = start(['analyzer', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'analyzer.key'), '--connect', tcp, '--json']);
  const args = (id) => ({ url, config: s.config, id, secretKey: s.secrets[id], input: '1' });
  const [own, others] = await Promise.all([rogue(args(0)), Promise.all([1, 2].map((id) => play(id, args(id))))]);
  const [a, sh] = await Promise.all([analyzer.exited, shuffler.exited]);
  return { own, others, a, sh };
}

// A record altered after its seal: the shuffler cannot see inside a seal and admits all three; the
// analyzer discards it and counts it; every page said it had the result.
export function checkAltered({ own, others, a, sh }) {
  assert.deepEqual(own.submitted, [0]);
  assert.equal(own.messages, 3);
  others.forEach((o, i) => assert.deepEqual(o.result.submitted, [i + 1]));
  assert.equal(sh.code, 0, sh.stderr);
  assert.equal(a.code, 0, a.stderr);
  assert.match(a.stderr, /1 message\(s\) were not sealed to this analyzer and were discarded/);
  assert.doesNotMatch(sh.stderr, /link was lost/);
}

// A submit frame sent twice: the copy refused as a replay, the first kept; only the replaying link
// is missed at the end (it never said done); party 0's record is in the output once.
export function checkReplayed({ others, a, sh }) {
  others.forEach((o, i) => assert.deepEqual(o.result.submitted, [i + 1]));
  assert.match(sh.stderr, /party 0\): rejected: frame sequence number 1 was already used \(replay\)/);
  // (Lost before the result was sent to it, or after, unconfirmed: which depends on the machine's load.)
  assert.match(sh.stderr, /party 0's link was lost before (the session's last result was sent to it|it confirmed the session's last result)/);
  assert.doesNotMatch(sh.stderr, /party [12]'s link was lost/);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(JSON.parse(a.stdout).messages, 3);
}
