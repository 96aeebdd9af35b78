// The pages of `shufflempc survey`: the respondent's (index.html: the question, the answer
// randomized and sealed here by the library's own code compiled for the browser, a receipt), the
// organiser's (organiser.html: closes the survey) and the results (results.html: the estimate,
// its error bar and the privacy guarantee in plain words, drawn). What the survey serves:
// survey.json (the question and the session config), results.json, POST /close. The respondent's
// invitation link carries its id and key after '#': the fragment never leaves the browser.
import createShufflempc from './shufflempc-party.mjs';
import { submitRound } from './party.mjs';

const $ = (id) => document.getElementById(id);

function say(text, kind = '') {
  const s = $('status');
  s.textContent = text;
  s.className = kind;
}

async function json(path, options = {}) {
  const r = await fetch(path, { cache: 'no-store', ...options });
  const v = await r.json();
  return { ok: r.ok, status: r.status, value: v };
}

const number = (v) => Number(v).toPrecision(3).replace(/\.?0+$/, '').replace(/\.?0+e/, 'e');

// The words a respondent sees for what a refusal means; the library's own words beside them.
function explain(message) {
  if (/refused our keys|refused these identities/.test(message))
    return 'This invitation link is not valid: the survey does not know its key. Use the link the organiser sent you, whole. Nothing was recorded.';
  if (/duplicate|already (submitted|admitted)|has a batch|second/.test(message))
    return 'This invitation was used already: its first answer is in the survey, and no second answer is taken.';
  if (/session.*(ended|over)|window|closed/.test(message))
    return 'This survey is closed: answers are no longer taken. Nothing was recorded.';
  return `Your answer could not be sent (${message}). Nothing was recorded: you may try again.`;
}

// The answer as the protocol's parties take it (JSON text, as `shufflempc party --input` reads
// it), or an error for the respondent.
function inputOf(survey, form) {
  if (survey.answer === 'number') {
    const text = form.querySelector('input[name=answer]').value.trim();
    const x = Number(text);
    const [lo, hi] = survey.range;
    if (text === '' || !Number.isFinite(x) || x < lo || x > hi) throw new Error(`Please give a number from ${lo} to ${hi}. Nothing was sent.`);
    return JSON.stringify((x - lo) / (hi - lo));
  }
  const chosen = form.querySelector('input[name=answer]:checked');
  if (!chosen) throw new Error('Please choose an answer. Nothing was sent.');
  return chosen.value;
}

function addOption(box, value, text) {
  const label = document.createElement('label');
  const input = document.createElement('input');
  input.type = 'radio';
  input.name = 'answer';
  input.value = value;
  label.append(input, ' ', text);
  box.append(label);
}

function showReceipt(receipt) {
  $('digest').textContent = receipt.digest;
  $('download').href = URL.createObjectURL(new Blob([receipt.file], { type: 'application/json' }));
  $('receipt').hidden = false;
}

async function answerPage() {
  const { value: survey } = await json('survey.json');
  $('question').textContent = survey.question;
  document.title = survey.question;
  $('privacy').textContent = `Your answer is randomized in this page (${survey.protocol}) before it leaves your browser, sealed so that ` +
    'only the analyzer can open it, and mixed with everyone else\'s answers before the analyzer sees it. The shuffler learns that you ' +
    `answered, not what; the published result is differentially private (epsilon = ${number(survey.epsilon)}, delta = ${number(survey.delta)}).`;
  const fields = new URLSearchParams(location.hash.slice(1));
  const idText = fields.get('id') ?? '';
  const key = fields.get('key') ?? '';
  if (!/^[0-9]+$/.test(idText) || Number(idText) >= survey.respondents || !/^[0-9a-f]{64}$/.test(key))
    return say('This invitation link is not valid: it must be the whole link the organiser sent you.', 'error');
  const id = Number(idText);
  const kept = `shufflempc-survey:${survey.config.length}:${idText}:${key.slice(0, 8)}`;
  const previous = localStorage.getItem(kept);
  if (previous) {
    say('You answered already, in this browser: your answer is in the survey. Your receipt is below.', 'ok');
    return showReceipt(JSON.parse(previous));
  }
  if (survey.status !== 'open') return say('This survey is closed: answers are no longer taken.', 'error');
  const form = $('form');
  const box = $('choices');
  if (survey.answer === 'yes-no') {
    addOption(box, '1', 'Yes');
    addOption(box, '0', 'No');
  } else if (survey.answer === 'choice') {
    survey.choices.forEach((c, i) => addOption(box, String(i), c));
  } else {
    const label = document.createElement('label');
    const input = document.createElement('input');
    input.name = 'answer';
    input.type = 'text';
    input.inputMode = 'decimal';
    label.append(`A number from ${survey.range[0]} to ${survey.range[1]}: `, input);
    box.append(label);
  }
  form.hidden = false;
  const party = createShufflempc();
  // While the respondent reads the question: the config read, the protocol calibrated, a record
  // made and sealed and a link's hello, each once and dropped, so that the module's code for them
  // is compiled before the click (the first call of a WebAssembly function compiles it: 90 ms of a
  // click's wait in Chromium before, measured by bench/web/bench_survey.mjs). Said on the page once
  // done (a test or a benchmark waits for it; a respondent need not).
  party.then((p) => {
    const info = p.sessionInfo(survey.config);
    p.protocolInfo(survey.config);
    p.roundRecords(survey.config, id, '0', key, -1);  // a record made and dropped: nothing is sent
    const link = new p.Link(info.session, info.digest, id, key, info.shufflerKey, -1);
    link.hello();
    link.delete();
    document.body.dataset.ready = 'yes';
  });
  form.addEventListener('submit', async (e) => {
    e.preventDefault();
    let input;
    try {
      input = inputOf(survey, form);
    } catch (err) {
      return say(err.message, 'error');
    }
    $('send').disabled = true;
    say('Randomizing and sealing your answer, then sending it…');
    try {
      const url = `${location.protocol === 'https:' ? 'wss' : 'ws'}://${location.host}/`;
      const o = await submitRound(await party, { url, config: survey.config, id, secretKey: key, input, leaveAfterReceipt: true });
      localStorage.setItem(kept, JSON.stringify(o.receipt));
      document.body.dataset.timings = JSON.stringify(o.timings);  // the page's own steps, for a benchmark
      form.hidden = true;
      say('Thank you: your answer is in the survey.', 'ok');
      showReceipt(o.receipt);
    } catch (err) {
      say(explain(err.message), 'error');
      $('send').disabled = /could not be sent/.test($('status').textContent) ? false : true;
    }
  });
}

async function organiserPage() {
  const token = new URLSearchParams(location.hash.slice(1)).get('token') ?? '';
  $('close').addEventListener('click', async () => {
    $('close').disabled = true;
    const r = await json('close', { method: 'POST', body: token });
    if (!r.ok) {
      $('close').disabled = false;
      return say(r.value.error, 'error');
    }
    say(r.value.said, 'ok');
  });
}

// The figure: a bar per estimate with its 95% interval, on the answer's own scale.
function draw(results) {
  const ns = 'http://www.w3.org/2000/svg';
  const shares = results.answer !== 'number';
  const [lo, hi] = shares ? [0, 1] : results.range;
  const rows = results.estimates;
  const width = 560, left = 140, right = 40, row = 36, top = 10;
  const height = top + rows.length * row + 30;
  const x = (v) => left + ((v - lo) / (hi - lo)) * (width - left - right);
  const svg = document.createElementNS(ns, 'svg');
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  svg.setAttribute('width', String(width));
  svg.setAttribute('role', 'img');
  const add = (name, attrs, text) => {
    const el = document.createElementNS(ns, name);
    for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, String(v));
    if (text !== undefined) el.textContent = text;
    svg.append(el);
    return el;
  };
  const show = (v) => (shares ? `${Math.round(100 * v)}%` : number(v));
  rows.forEach((e, i) => {
    const y = top + i * row;
    add('text', { x: left - 8, y: y + 20, 'text-anchor': 'end' }, e.label);
    add('rect', { x: x(lo), y: y + 6, width: Math.max(0, x(e.value) - x(lo)), height: 20, fill: '#4c78a8' });
    if (e.low !== undefined) {
      add('line', { x1: x(e.low), x2: x(e.high), y1: y + 16, y2: y + 16, stroke: '#111', 'stroke-width': 2 });
      for (const v of [e.low, e.high]) add('line', { x1: x(v), x2: x(v), y1: y + 9, y2: y + 23, stroke: '#111', 'stroke-width': 2 });
    }
    add('text', { x: Math.min(x(e.high ?? e.value) + 6, width - right + 4), y: y + 20 }, show(e.value));
  });
  const axis = top + rows.length * row + 4;
  add('line', { x1: x(lo), x2: x(hi), y1: axis, y2: axis, stroke: '#777' });
  for (const t of [0, 0.25, 0.5, 0.75, 1]) {
    const v = lo + t * (hi - lo);
    add('text', { x: x(v), y: axis + 16, 'text-anchor': 'middle' }, show(v));
  }
  svg.setAttribute('aria-label', results.words.join(' '));
  $('chart').replaceChildren(svg);
  $('figure').hidden = false;
}

async function resultsPage() {
  for (;;) {
    const { value: r } = await json('results.json');
    if (r.status === 'done') {
      $('question').textContent = r.question;
      say(`The survey is closed: ${r.submitted} of ${r.respondents} invited respondents answered.`, 'ok');
      draw(r);
      $('findings').replaceChildren(...r.words.map((w) => Object.assign(document.createElement('li'), { textContent: w })));
      $('guarantee').replaceChildren(...r.privacy.map((w) => Object.assign(document.createElement('li'), { textContent: w })));
      $('words').hidden = false;
      return;
    }
    if (r.status === 'failed') {
      $('question').textContent = r.question;
      return say(`The survey closed without a result: ${r.error}`, 'error');
    }
    say(r.status === 'closing' ? 'The survey is closed; the analyzer is computing the result…' : 'The survey is still open: the results come once it closes.');
    await new Promise((resolve) => setTimeout(resolve, 1000));
  }
}

const pages = { answer: answerPage, organiser: organiserPage, results: resultsPage };
pages[document.body.dataset.page]().catch((e) => say(`This page failed: ${e.message}`, 'error'));
