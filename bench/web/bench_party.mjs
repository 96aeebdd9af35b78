// A party's work from its answer to its submit frame in the browser's build: the same steps as
// bench_party_work natively (the session config read and checked, the party's messages drawn and
// sealed, the submit payload, the link's handshake against a reply, the sealed submit frame), all
// in the WebAssembly module, in Node.js or (--chromium PATH) in a page of headless Chromium. The
// link's handshake is the known answers' session's (tests/web/link_vectors.json), whose reply the
// native build made: the client's work is the same whatever session it is for. Median of --repeat
// runs; the module's sizes, raw and gzip-compressed.
//   node bench/web/bench_party.mjs --module build/web/shufflempc-party.mjs --config session.json [--repeat 200] [--chromium /usr/bin/chromium]
import { createReadStream, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';

const { values } = parseArgs({
  options: { module: { type: 'string' }, config: { type: 'string' }, repeat: { type: 'string', default: '200' }, chromium: { type: 'string' } },
});
if (!values.module || !values.config) throw new Error('usage: --module build/web/shufflempc-party.mjs --config session.json [--repeat N] [--chromium PATH]');
const here = dirname(fileURLToPath(import.meta.url));
const modulePath = resolve(values.module);
const vectors = JSON.parse(readFileSync(join(here, '../../tests/web/link_vectors.json')));
const config = readFileSync(values.config, 'utf8');
const repeat = Number(values.repeat);

// The timed loop: self-contained, so that a page can run it too. Returns the sorted times (ms).
function work(party, config, vectors, repeat) {
  const check = (v) => { if (v && v.error) throw new Error(v.error); return v; };
  const reply = new Uint8Array(vectors.reply.match(/../g).map((h) => parseInt(h, 16)));
  const ms = [];
  let frameBytes = 0;
  for (let i = 0; i < repeat; ++i) {
    const t0 = performance.now();
    const info = check(party.sessionInfo(config));
    const records = check(party.roundRecords(config, 0, '1', '', -1));
    const link = new party.Link(vectors.session, info.digest, 0, vectors.party_secret, vectors.shuffler_public, -1);
    link.hello();
    check(link.finish(reply));
    frameBytes = check(link.seal(2, 0, records.width, records.count, records.payload)).length;
    link.delete();
    ms.push(performance.now() - t0);
  }
  return { ms: ms.sort((a, b) => a - b), frameBytes };
}

let result, where;
if (values.chromium) {
  const { chromium } = createRequire(join(here, '../../web/package.json'))('playwright-core');
  const files = { '/shufflempc-party.mjs': [modulePath, 'text/javascript'],
                  '/shufflempc-party.wasm': [modulePath.replace(/\.mjs$/, '.wasm'), 'application/wasm'] };
  const server = createServer((req, res) => {
    if (req.url === '/') {
      res.writeHead(200, { 'content-type': 'text/html' });
      return res.end(`<!doctype html><script type="module">import c from '/shufflempc-party.mjs'; window.party = await c();</script>`);
    }
    const f = files[req.url];
    if (!f) { res.writeHead(404); return res.end(); }
    res.writeHead(200, { 'content-type': f[1] });
    createReadStream(f[0]).pipe(res);
  });
  await new Promise((r) => server.listen(0, '127.0.0.1', r));
  const browser = await chromium.launch({ executablePath: values.chromium,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
  const page = await browser.newPage();
  await page.goto(`http://127.0.0.1:${server.address().port}/`);
  await page.waitForFunction(() => window.party !== undefined);
  result = await page.evaluate(([source, c, v, n]) => (0, eval)(`(${source})`)(window.party, c, v, n), [work.toString(), config, vectors, repeat]);
  where = `headless Chromium ${browser.version()}`;
  await browser.close();
  server.close();
} else {
  globalThis.self ??= globalThis;  // libsodium's randomness: self.crypto, as in a browser
  const party = await (await import(new URL(`file://${modulePath}`).href)).default({ wasmBinary: readFileSync(modulePath.replace(/\.mjs$/, '.wasm')) });
  result = work(party, config, vectors, repeat);
  where = `Node.js ${process.version}`;
}
const at = (q) => result.ms[Math.floor(q * result.ms.length)];
console.log(`browser's build (${where}) party work: median ${(1000 * at(0.5)).toFixed(1)} us ` +
            `(p10 ${(1000 * at(0.1)).toFixed(1)}, p90 ${(1000 * at(0.9)).toFixed(1)}) over ${repeat} runs, submit frame ${result.frameBytes} bytes`);
const wasm = readFileSync(modulePath.replace(/\.mjs$/, '.wasm'));
const js = readFileSync(modulePath);
console.log(`module: ${wasm.length} B WebAssembly (${gzipSync(wasm, { level: 9 }).length} B gzip), ` +
            `${js.length} B JavaScript (${gzipSync(js, { level: 9 }).length} B gzip)`);
