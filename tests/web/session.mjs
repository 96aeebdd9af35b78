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
export function makeSession(name, protocol, params, parties, browsers) {
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

// A round of `parties`, the first `browsers` of them played by `play(i, {url, config, secretKey,
// input})` (a promise of its outcome), the rest by one native party process over TCP.
export async function round({ name, protocol, params, parties, browsers, inputOf, play }) {
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
    pages.push(play(i, { url: `ws://${ws}`, config: s.config, id: i, secretKey: s.secrets[i], input: JSON.stringify(inputs[i]) }));
  const outcomes = await Promise.all(pages);
  const [a, n, sh] = await Promise.all([analyzer.exited, natives.exited, shuffler.exited]);
  assert.equal(n.code, 0, n.stderr);
  assert.equal(a.code, 0, a.stderr);
  assert.equal(sh.code, 0, sh.stderr);
  // Every page said it had the session's last result, as a native party does: none is waited for.
  assert.doesNotMatch(sh.stderr, /link was lost/);
  return { outcomes, report: JSON.parse(a.stdout), inputs, config: s.config };
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
