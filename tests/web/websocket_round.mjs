// Parties of the browser's build in real rounds: a shuffler process with its WebSocket door
// (`shufflempc shuffler --websocket`), the analyzer process, a native party process hosting most
// parties over TCP, and parties of the WebAssembly build (web/js/party.mjs) over WebSocket, in one
// counting round and one sum round. Every party is in the result, none dropped, the message count
// is the native and browser parties' own, and the output is within six of the protocol's own
// standard deviations of the truth. Then the refusals a page meets: a key that is not the party's,
// an input out of range, a config that is not the shuffler's. Run by ctest with SHUFFLEMPC_CLI and
// SHUFFLEMPC_WEB_MODULE set (tests/CMakeLists.txt).
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test, after } from 'node:test';
import { loadParty } from './party_module.mjs';
import { submitRound } from '../../web/js/party.mjs';

const cli = process.env.SHUFFLEMPC_CLI;
if (!cli) throw new Error('SHUFFLEMPC_CLI: the path of the built shufflempc');
if (typeof WebSocket === 'undefined') throw new Error('this Node.js has no WebSocket: run it with --experimental-websocket (Node.js 20) or use Node.js 22');
const party = await loadParty();
const dir = mkdtempSync(join(tmpdir(), 'shufflempc-web-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const run = (...args) => execFileSync(cli, args, { cwd: dir, encoding: 'utf8' });

// A process whose stdout lines are read as they come; `exited` resolves with its code and output.
function start(args) {
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
function makeSession(name, protocol, params, parties, browsers) {
  const d = join(dir, name);
  mkdirSync(d);
  run('keygen', '-o', join(d, 'shuffler.key'));
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
  run('session', '-p', protocol, ...params.flatMap((p) => ['--param', p]), '--shuffler-key', join(d, 'shuffler.key'),
      '--analyzer-key', join(d, 'analyzer.key'), '--party-keys', join(d, 'party-keys.txt'), '-o', join(d, 'session.json'));
  return { d, secrets, config: readFileSync(join(d, 'session.json'), 'utf8') };
}

async function round({ name, protocol, params, parties, browsers, inputOf }) {
  const s = makeSession(name, protocol, params, parties, browsers);
  const shuffler = start(['shuffler', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'shuffler.key'),
                          '--listen', '127.0.0.1:0', '--websocket', '127.0.0.1:0']);
  const tcp = (await shuffler.line('listening on ')).split(' ').pop();
  const ws = (await shuffler.line('websocket on ')).split(' ').pop();
  const analyzer = start(['analyzer', '--config', join(s.d, 'session.json'), '--key', join(s.d, 'analyzer.key'), '--connect', tcp, '--json']);
  const inputs = [];
  for (let i = 0; i < parties; ++i) inputs.push(inputOf(i));
  writeFileSync(join(s.d, 'inputs.json'), JSON.stringify(inputs.slice(browsers)));
  const natives = start(['party', '--config', join(s.d, 'session.json'), '--id', `${browsers}-${parties - 1}`,
                         '--key-bundle', join(s.d, 'bundle.json'), '--inputs', join(s.d, 'inputs.json'), '--connect', tcp]);
  const pages = [];
  for (let i = 0; i < browsers; ++i)
    pages.push(submitRound(party, { url: `ws://${ws}`, config: s.config, id: i, secretKey: s.secrets[i], input: JSON.stringify(inputs[i]) }));
  const outcomes = await Promise.all(pages);
  const [a, n, sh] = await Promise.all([analyzer.exited, natives.exited, shuffler.exited]);
  assert.equal(n.code, 0, n.stderr);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(sh.code, 0, sh.stderr);
  return { outcomes, report: JSON.parse(a.stdout), inputs, config: s.config };
}

// Each page's link hears of its own party only: submitted, not dropped; every page is told the
// round's whole message count.
function checkRound({ outcomes }, browsers) {
  assert.equal(outcomes.length, browsers);
  outcomes.forEach((o, id) => {
    assert.deepEqual(o.result.submitted, [id]);
    assert.deepEqual(o.result.dropped, []);
    assert.equal(o.result.messages, outcomes[0].result.messages);
  });
  return outcomes[0].result.messages;
}

function outcomes_records(r, each) {
  for (const o of r.outcomes) assert.equal(o.records, each);
}

test('a counting round: browser parties over WebSocket beside native ones over TCP', async () => {
  const parties = 300, browsers = 12;
  const r = await round({ name: 'counting', protocol: 'counting', params: ['epsilon=1', 'delta=0.01'], parties, browsers,
                          inputOf: (i) => (i % 3 === 0 ? 1 : 0) });
  // Two messages a party, its bit and a noise bit: the count is exact.
  assert.equal(checkRound(r, browsers), 2 * parties);
  outcomes_records(r, 2);
  const truth = r.inputs.reduce((a, b) => a + b, 0);
  // The protocol's stated standard deviation, from the browser's build of it.
  const sd = party.sessionInfo(r.config).predictedSd;
  assert.ok(typeof sd === 'number' && sd > 0);
  assert.ok(Math.abs(r.report.output - truth) <= 6 * sd, `output ${r.report.output}, truth ${truth}, sd ${sd}`);
});

test('a sum round: split-mix shares from browser parties beside native ones', async () => {
  const parties = 200, browsers = 10;
  const r = await round({ name: 'sum', protocol: 'split-mix-dp-sum', params: ['epsilon=1'], parties, browsers,
                          inputOf: (i) => (i % 10) / 10 });
  const each = r.outcomes[0].records;
  outcomes_records(r, each);
  assert.ok(each >= 3);
  // Every party sends the same number of shares: the count is exact.
  assert.equal(checkRound(r, browsers), each * parties);
  const truth = r.inputs.reduce((a, b) => a + b, 0);
  const sd = party.sessionInfo(r.config).predictedSd;
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
