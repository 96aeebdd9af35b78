// Parties in a real browser: pages of headless Chromium (Debian's, driven by playwright-core from
// web/package-lock.json) load the browser's build and web/js/party.mjs from a local HTTP server,
// each page one party, and submit over the shuffler's WebSocket door beside 1,000 native parties
// over TCP: a counting round and a split-mix-dp-sum round of 1,020 parties, 20 of them pages.
// Every page's party is in the result and none dropped, the message counts are exact, and the
// output is within 6.5 of the protocol's stated standard deviations of the truth; and 3 pages through
// a 3-server onion chain and a verifiable chain (the transcript verifies). Run by ctest
// with SHUFFLEMPC_CLI and SHUFFLEMPC_WEB_MODULE set (tests/CMakeLists.txt), and SHUFFLEMPC_CHROMIUM
// (default /usr/bin/chromium).
import assert from 'node:assert/strict';
import { createReadStream, existsSync } from 'node:fs';
import { createServer } from 'node:http';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { test, after, before } from 'node:test';
import { launchChromium } from './chromium.mjs';
import { loadParty } from './party_module.mjs';
import { execFileSync } from 'node:child_process';
import { checkAltered, checkEstimate, checkReplayed, checkRound, removeDir, round as sessionRound, sameRecords, threePages } from './session.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const moduleDir = dirname(process.env.SHUFFLEMPC_WEB_MODULE ?? '');
if (!existsSync(join(moduleDir, 'shufflempc-party.wasm'))) throw new Error('SHUFFLEMPC_WEB_MODULE: the path of the built shufflempc-party.mjs');

// The page: the module and the round's code, and one function the test calls.
const page = `<!doctype html>
<meta charset="utf-8"><title>shufflempc party</title>
<script type="module">
import createShufflempc from '/shufflempc-party.mjs';
import { submitRound, openLink, FRAME } from '/party.mjs';
import { alteredRecord, replayedSubmit } from '/tampering.mjs';
const party = createShufflempc();
window.runParty = async (args) => submitRound(await party, args);
window.alteredRecord = async (args) => alteredRecord(await party, { openLink, FRAME }, args);
window.replayedSubmit = async (args) => replayedSubmit(await party, { openLink, FRAME }, args);
window.ready = true;
</script>`;
const files = {
  '/shufflempc-party.mjs': [join(moduleDir, 'shufflempc-party.mjs'), 'text/javascript'],
  '/shufflempc-party.wasm': [join(moduleDir, 'shufflempc-party.wasm'), 'application/wasm'],
  '/party.mjs': [join(here, '../../web/js/party.mjs'), 'text/javascript'],
  '/tampering.mjs': [join(here, 'tampering.mjs'), 'text/javascript'],
};
const server = createServer((req, res) => {
  if (req.url === '/') {
    res.writeHead(200, { 'content-type': 'text/html' });
    return res.end(page);
  }
  const file = files[req.url];
  if (!file) {
    res.writeHead(404);
    return res.end();
  }
  res.writeHead(200, { 'content-type': file[1] });
  createReadStream(file[0]).pipe(res);
});
let browser;
let origin;
before(async () => {
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  origin = `http://127.0.0.1:${server.address().port}/`;
  browser = await launchChromium();
});
after(async () => {
  if (browser) await browser.close();
  server.close();
  removeDir();
});

// One party in a page of its own: `what` names the page's function (runParty: an honest round).
async function inPage(i, args, what = 'runParty') {
  const context = await browser.newContext();
  try {
    const p = await context.newPage();
    await p.goto(origin);
    await p.waitForFunction(() => window.ready === true);
    return await p.evaluate(([f, a]) => window[f](a), [what, args]);
  } finally {
    await context.close();
  }
}

// The protocol's stated standard deviation, from the browser's build (here in Node.js).
const party = await loadParty();
const round = async (args) => {
  const r = await sessionRound({ ...args, play: inPage });
  return { ...r, predictedSd: party.protocolInfo(r.config).predictedSd };
};

test('a counting round: 20 parties in pages of Chromium, 1,000 native ones', async () => {
  const parties = 1020, browsers = 20;
  const r = await round({ name: 'chromium-counting', protocol: 'counting', params: ['epsilon=1', 'delta=1e-6'], parties, browsers,
                          inputOf: (i) => (i % 4 === 0 ? 1 : 0) });
  assert.equal(checkRound(r, browsers), 2 * parties);
  sameRecords(r, 2);
  checkEstimate(r, r.predictedSd);
  const work = r.outcomes.map((o) => o.timings.sealMs).sort((a, b) => a - b);
  console.log(`# a page's party work from answer to sealed records: median ${work[work.length >> 1].toFixed(1)} ms, ` +
              `max ${work[work.length - 1].toFixed(1)} ms (20 pages at once on this machine)`);
});

test('a sum round: 20 parties in pages of Chromium, 1,000 native ones', async () => {
  const parties = 1020, browsers = 20;
  const r = await round({ name: 'chromium-sum', protocol: 'split-mix-dp-sum', params: ['epsilon=1'], parties, browsers,
                          inputOf: (i) => (i % 7) / 7 });
  const each = r.outcomes[0].records;
  sameRecords(r, each);
  assert.equal(checkRound(r, browsers), each * parties);
  checkEstimate(r, r.predictedSd);
});

// Through a chain of three mix servers, onion and verifiable: each page wraps its record for the
// chain, checks the entry's receipt of it and sends its verdict to the analyzer's door, beside
// native parties; through the verifiable chain the transcript verifies against its session.
for (const mix of ['onion', 'verifiable']) {
  test(`a 3-server ${mix} chain: 3 parties in pages of Chromium, 27 native ones`, async () => {
    const parties = 30, browsers = 3;
    const r = await round({ name: `chromium-${mix}`, protocol: 'randomized-response', params: ['epsilon=1'], parties, browsers,
                            inputOf: (i) => (i % 3 === 0 ? 1 : 0), chain: { servers: 3, mix } });
    assert.equal(checkRound(r, browsers), parties);
    r.outcomes.forEach((o) => assert.deepEqual(o.verdict, { confirmed: true, reason: '', delivered: true }));
    checkEstimate(r, r.predictedSd);
    if (mix === 'verifiable')
      assert.match(execFileSync(process.env.SHUFFLEMPC_CLI, ['verify', `${r.dir}/transcript.json`, '--config', `${r.dir}/session.json`],
                                { encoding: 'utf8' }), /verified/);
  });
}

// A page that alters its sealed record, and one that sends its submit frame twice: each refused and
// counted, as in Node.js (tests/web/tampering.mjs, the same code).
test('a page that alters its record after sealing it: carried, discarded by the analyzer, counted', async () => {
  checkAltered(await threePages('chromium-altered', inPage, (a) => inPage(0, a, 'alteredRecord')));
});

test('a page that replays its submit frame: the copy refused as a replay, the first kept', async () => {
  checkReplayed(await threePages('chromium-replayed', inPage, (a) => inPage(0, a, 'replayedSubmit')));
});
