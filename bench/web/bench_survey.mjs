// A respondent of `shufflempc survey` in headless Chromium: what the page and its code cost to
// download (the bytes the survey sends, gzip-encoded as a browser asks for them), the time from
// opening the invitation to the form and to the module compiled, and from the click (the module ready) on "Send my answer" to the checked receipt
// on the page (randomize, seal, handshake, submit, the shuffler's durable admission and its signed
// receipt checked by the library). Its same-run baseline: a native respondent of the same survey,
// `shufflempc party --leave-after-receipt`, from the process's start to its exit. Medians of
// --respondents pages, each in a fresh browser context (nothing cached), one after another; a
// progress line a respondent on stderr.
//   node bench/web/bench_survey.mjs --cli build/bin/shufflempc [--respondents 40] [--chromium /usr/bin/chromium]
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { cli: { type: 'string' }, respondents: { type: 'string', default: '40' }, chromium: { type: 'string', default: '/usr/bin/chromium' } },
});
if (!values.cli) throw new Error('usage: --cli build/bin/shufflempc [--respondents N] [--chromium PATH]');
const here = dirname(fileURLToPath(import.meta.url));
const { chromium } = createRequire(join(here, '../../web/package.json'))('playwright-core');
const pages = Number(values.respondents);
const natives = 10;
const dir = mkdtempSync(join(tmpdir(), 'shufflempc-bench-survey-'));

const child = spawn(values.cli, ['survey', '--question', 'Did you sleep well?', '--respondents', String(pages + natives),
                                 '--dir', join(dir, 'survey'), '--exit-when-done'], { stdio: ['ignore', 'pipe', 'inherit'] });
const lines = [];
await new Promise((resolve) => {
  createInterface({ input: child.stdout }).on('line', (l) => {
    lines.push(l);
    if (l.startsWith('invitation 0 ')) resolve();
  });
});
const shuffler = lines.find((l) => l.startsWith('native parties ')).match(/--connect (\S+)/)[1];
const invitations = execFileSync('cat', [join(dir, 'survey', 'invitations.txt')], { encoding: 'utf8' }).trim().split('\n');

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const p90 = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)];
const browser = await chromium.launch({ executablePath: values.chromium, args: ['--no-sandbox', '--disable-gpu'] });
const loads = [], ready = [], answers = [], transferred = [], steps = [];
for (let i = 0; i < pages; ++i) {
  const context = await browser.newContext();
  const page = await context.newPage();
  let bytes = 0;
  page.on('response', async (r) => {
    const length = Number((await r.allHeaders())['content-length'] ?? 0);
    bytes += length;
  });
  const t0 = performance.now();
  await page.goto(invitations[i]);
  await page.waitForSelector('#form:not([hidden])');
  const t1 = performance.now();
  await page.waitForSelector('body[data-ready=yes]');
  const t2 = performance.now();
  await page.getByLabel(i % 2 ? 'No' : 'Yes', { exact: true }).check();
  const clicked = performance.now();
  await page.click('#send');
  await page.waitForFunction(() => /Thank you|not|could/.test(document.getElementById('status').textContent));
  const done = performance.now();
  if (!/Thank you/.test(await page.textContent('#status'))) throw new Error(await page.textContent('#status'));
  steps.push(JSON.parse(await page.getAttribute('body', 'data-timings')));
  loads.push(t1 - t0);
  ready.push(t2 - t0);
  answers.push(done - clicked);
  transferred.push(bytes);
  await context.close();
  process.stderr.write(`bench_survey: page ${i + 1} of ${pages}: ${(done - clicked).toFixed(1)} ms to its receipt\n`);
}
await browser.close();
const native = [];
for (let k = 0; k < natives; ++k) {
  const id = pages + k;
  const t0 = performance.now();
  execFileSync(values.cli, ['party', '--config', join(dir, 'survey', 'session.json'), '--id', String(id), '--key', join(dir, 'survey', `party-${id}.key`),
                            '--connect', shuffler, '--input', '1', '--leave-after-receipt'], { stdio: 'pipe' });
  native.push(performance.now() - t0);
  process.stderr.write(`bench_survey: native respondent ${k + 1} of ${natives}\n`);
}
await new Promise((resolve) => child.on('exit', resolve));
rmSync(dir, { recursive: true, force: true });
const f = (x) => x.toFixed(1);
console.log(`page and code transferred (gzip, Content-Length): ${median(transferred)} B (every page the same: ${new Set(transferred).size === 1})`);
console.log(`invitation opened to form shown: median ${f(median(loads))} ms, p90 ${f(p90(loads))} ms (${pages} pages, fresh contexts)`);
console.log(`invitation opened to the module compiled and ready: median ${f(median(ready))} ms, p90 ${f(p90(ready))} ms`);
console.log(`click to the checked receipt: median ${f(median(answers))} ms, p90 ${f(p90(answers))} ms`);
console.log(`of it in the page (submitRound's own clock): sealed ${f(median(steps.map((t) => t.sealMs)))} ms, submit frame sent ${f(median(steps.map((t) => t.submitMs)))} ms, receipt checked ${f(median(steps.map((t) => t.receiptMs)))} ms (medians)`);
console.log(`native respondent, party --leave-after-receipt, start to exit: median ${f(median(native))} ms, p90 ${f(p90(native))} ms (${natives} processes)`);
