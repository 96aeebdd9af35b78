// `shufflempc survey` clicked through in headless Chromium (Debian's, driven by playwright-core
// from web/package-lock.json): the survey process serves its pages and its shuffler's WebSocket
// door on one port, respondents answer in pages from their invitation links, native party
// processes answer beside them, the organiser closes the survey on its page, the results page
// shows the estimate with its interval, drawn. The refusals a respondent meets, each with its
// message and nothing changed: an invitation used twice, a forged one, a mangled one, an
// out-of-range number, a closed survey, a wrong organiser link. A receipt downloaded from a page is
// checked against the published commitment by `shufflempc receipt`. Run by ctest with
// SHUFFLEMPC_CLI and SHUFFLEMPC_CHROMIUM set (tests/CMakeLists.txt).
import assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { test, after, before } from 'node:test';
import { launchChromium } from './chromium.mjs';

const cli = process.env.SHUFFLEMPC_CLI;
if (!cli) throw new Error('SHUFFLEMPC_CLI: the path of the built shufflempc');
const dir = mkdtempSync(join(tmpdir(), 'shufflempc-survey-'));

let browser;
before(async () => {
  browser = await launchChromium();
});
after(async () => {
  if (browser) await browser.close();
  rmSync(dir, { recursive: true, force: true });
});

// A survey process: its printed lines (the site, the organiser's link, the invitations, the
// native parties' address), and its exit.
async function startSurvey(name, args) {
  const child = spawn(cli, ['survey', '--dir', join(dir, name), ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  const lines = [];
  let stderr = '';
  let notify = null;
  createInterface({ input: child.stdout }).on('line', (l) => { lines.push(l); if (notify) notify(); });
  child.stderr.on('data', (d) => { stderr += d; });
  const exited = new Promise((resolve) => child.on('exit', (code) => resolve({ code, stderr })));
  const line = async (prefix) => {
    for (;;) {
      const found = lines.find((l) => l.startsWith(prefix));
      if (found) return found;
      if (child.exitCode !== null) throw new Error(`survey exited before printing '${prefix}': ${stderr}`);
      await new Promise((resolve) => { notify = resolve; setTimeout(resolve, 1000); });
    }
  };
  const site = (await line('survey on ')).split(' ')[2];
  const organiser = (await line('organiser ')).split(' ')[1];
  const shuffler = (await line('native parties ')).match(/--connect (\S+)/)[1];
  await line('invitation 0 ');
  const invitations = lines.filter((l) => l.startsWith('invitation ')).map((l) => l.split(' ')[2]);
  return { child, exited, line, site, organiser, shuffler, invitations, dir: join(dir, name), lines };
}

// A page in a fresh browser context (its own storage, as another person's browser).
async function open(url) {
  const context = await browser.newContext({ acceptDownloads: true });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(url);
  return { context, page, problems };
}

const statusOf = async (page, pattern) => {
  await page.waitForFunction((p) => new RegExp(p).test(document.getElementById('status').textContent), pattern.source, { timeout: 60000 });
  return page.textContent('#status');
};

// Answers on the page of `url` (a radio's label, or a number typed) and waits for the status.
async function answer(s, url, { choose, type, expect = /Thank you/ }) {
  const { context, page, problems } = await open(url);
  await page.waitForSelector('#form:not([hidden])');
  if (choose) await page.getByLabel(choose, { exact: true }).check();
  if (type !== undefined) await page.fill('input[name=answer]', type);
  await page.click('#send');
  const said = await statusOf(page, new RegExp(`${expect.source}|not valid|used already|closed|could not be sent|Please`));
  assert.match(said, expect);
  assert.deepEqual(problems, []);
  return { context, page, said };
}

const withKey = (url, key) => url.replace(/key=[0-9a-f]+/, `key=${key}`);

test('a yes/no survey: pages and native parties answer, the organiser closes it, the results are drawn; every refusal has its message', async () => {
  const s = await startSurvey('yes-no', ['--question', 'Did you sleep well?', '--respondents', '7', '--min-respondents', '4']);
  // Respondents 0 to 2 answer in their browsers, each receipt checked by the library in the page.
  const answers = ['Yes', 'No', 'Yes'];
  const receipts = [];
  for (let i = 0; i < 3; ++i) {
    const { context, page } = await answer(s, s.invitations[i], { choose: answers[i] });
    assert.match(await page.textContent('#digest'), /^[0-9a-f]{64}$/);
    const download = page.waitForEvent('download');
    await page.click('#download');
    receipts.push(readFileSync(await (await download).path(), 'utf8'));
    // Opened again in the same browser: it says so and shows the receipt, sending nothing.
    await page.reload();
    assert.match(await statusOf(page, /answered already/), /your answer is in the survey/);
    await context.close();
  }
  // Respondents 3 and 4 are native processes with their key files, over TCP to the same shuffler.
  for (const id of [3, 4])
    execFileSync(cli, ['party', '--config', join(s.dir, 'session.json'), '--id', String(id), '--key', join(s.dir, `party-${id}.key`),
                       '--connect', s.shuffler, '--input', '1', '--leave-after-receipt'], { stdio: 'pipe' });
  // Invitation 0 again in another browser: the shuffler keeps the first answer and says so.
  (await answer(s, s.invitations[0], { choose: 'No', expect: /used already/ })).context.close();
  // A forged invitation (respondent 5's id, another key), and a mangled one: refused, nothing sent.
  const forged = withKey(s.invitations[5], 'ab'.repeat(32));
  (await answer(s, forged, { choose: 'Yes', expect: /not valid: the survey does not know its key/ })).context.close();
  {
    const { context, page } = await open(s.invitations[5].replace(/&key=.*/, ''));
    assert.match(await statusOf(page, /not valid/), /whole link/);
    await context.close();
  }
  // The organiser's link with another token is refused, and the survey stays open.
  {
    const { context, page } = await open(s.organiser.replace(/token=[0-9a-f]+/, 'token=' + '0'.repeat(32)));
    await page.click('#close');
    assert.match(await statusOf(page, /organiser/), /not the organiser's link: the survey stays open/);
    await context.close();
  }
  const stillOpen = await (await fetch(s.site + 'results.json')).json();
  assert.equal(stillOpen.status, 'open');
  // The organiser closes it; the results page draws the estimate once the analyzer has it.
  const results = await open(s.site + 'results');
  {
    const { context, page } = await open(s.organiser);
    await page.click('#close');
    assert.match(await statusOf(page, /closed/), /the analyzer is computing the result/);
    await context.close();
  }
  assert.match(await statusOf(results.page, /survey is closed: /), /5 of 7 invited respondents answered/);
  assert.equal(await results.page.locator('#chart svg rect').count(), 1);
  assert.equal(await results.page.locator('#chart svg line').count(), 4);  // the interval, its two ends, the axis
  const findings = await results.page.textContent('#findings');
  assert.match(findings, /An estimated \d+% of the 5 respondents who answered said yes \(95% interval: \d+% to \d+%\)/);
  assert.match(await results.page.textContent('#guarantee'), /epsilon = 1, delta = 1e-06/);
  await results.context.close();
  const r = await (await fetch(s.site + 'results.json')).json();
  assert.equal(r.submitted, 5);
  // The estimate within 6.5 of the protocol's stated standard deviations of the truth (4 of 5 said yes).
  assert.ok(Math.abs(r.output - 4) <= 6.5 * r.sd, `output ${r.output}, sd ${r.sd}`);
  // Respondent 6 comes after the close: the page says the survey is closed.
  {
    const { context, page } = await open(s.invitations[6]);
    assert.match(await statusOf(page, /closed/), /no longer taken/);
    await context.close();
  }
  // Each receipt a page gave is in the batch the shuffler committed to, checked with no server.
  writeFileSync(join(s.dir, 'commitment-fetched.json'), await (await fetch(s.site + 'commitment.json')).text());
  receipts.forEach((text, i) => {
    writeFileSync(join(s.dir, `page-receipt-${i}.json`), text);
    const out = execFileSync(cli, ['receipt', join(s.dir, `page-receipt-${i}.json`), '--commitment', join(s.dir, 'commitment-fetched.json'),
                                   '--config', join(s.dir, 'session.json')], { encoding: 'utf8' });
    assert.match(out, new RegExp(`included .* party ${i} in round 0`));
  });
  s.child.kill('SIGTERM');
  const end = await s.exited;
  assert.equal(end.code, 0, end.stderr);
  assert.match(end.stderr, /party 0 .*duplicate submission rejected \(its first batch stands\)/);
});

test('a number survey: an answer out of range or not a number is refused in the page; too few answers close it without a result', async () => {
  const s = await startSurvey('number', ['--question', 'How many hours did you sleep?', '--answer', 'number', '--range', '0,12',
                                         '--respondents', '4', '--min-respondents', '2']);
  const { context, page } = await open(s.invitations[0]);
  await page.waitForSelector('#form:not([hidden])');
  for (const wrong of ['13', '-1', 'seven', '']) {
    await page.fill('input[name=answer]', wrong);
    await page.click('#send');
    assert.match(await statusOf(page, /Please/), /Please give a number from 0 to 12\. Nothing was sent\./);
  }
  await page.fill('input[name=answer]', '7.5');
  await page.click('#send');
  assert.match(await statusOf(page, /Thank you|could not/), /Thank you/);
  await context.close();
  // One answer of the two needed: closing it ends the survey without a result, and says why.
  const r = await fetch(s.site + 'close', { method: 'POST', body: s.organiser.split('token=')[1] });
  assert.equal(r.status, 200);
  const results = await open(s.site + 'results');
  assert.match(await statusOf(results.page, /without a result/), /1 of 4 parties submitted, at least 2 needed/);
  await results.context.close();
  s.child.kill('SIGTERM');
  const end = await s.exited;
  assert.equal(end.code, 1, end.stderr);
});

test('a choice survey: once every respondent has answered it closes by itself, and the command exits with an estimate a choice', async () => {
  const s = await startSurvey('choice', ['--question', 'Which season?', '--answer', 'choice', '--choices', 'winter,spring,summer',
                                         '--respondents', '3', '--min-respondents', '3', '--exit-when-done']);
  for (const [i, c] of ['summer', 'summer', 'winter'].entries()) (await answer(s, s.invitations[i], { choose: c })).context.close();
  // Every respondent answered: the window closes by itself, and the command exits once it has the result.
  const end = await s.exited;
  assert.equal(end.code, 0, end.stderr);
  const r = JSON.parse(readFileSync(join(s.dir, 'results.json'), 'utf8'));
  assert.deepEqual(r.estimates.map((e) => e.label), ['winter', 'spring', 'summer']);
  assert.equal(r.submitted, 3);
  assert.ok(s.lines.some((l) => /^results summer: an estimated \d+%/.test(l)), s.lines.join('\n'));
});
