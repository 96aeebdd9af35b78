// A party's work from its answer to its submit frame in the browser's build, in Node.js: the same
// steps as bench_party_work natively (the session config read and checked, the party's messages
// drawn and sealed, the submit payload, the link's handshake against a reply, the sealed submit
// frame), all in the WebAssembly module. The link's handshake is the known answers' session's
// (tests/web/link_vectors.json), whose reply the native build made: the client's work is the same
// whatever session it is for. Median of
// --repeat runs, in milliseconds; the module's sizes, raw and gzip-compressed.
//   node bench/web/bench_party.mjs --module build/web/shufflempc-party.mjs --config session.json [--repeat 200]
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';
import { parseArgs } from 'node:util';

const { values } = parseArgs({ options: { module: { type: 'string' }, config: { type: 'string' }, repeat: { type: 'string', default: '200' } } });
if (!values.module || !values.config) throw new Error('usage: --module build/web/shufflempc-party.mjs --config session.json [--repeat N]');
globalThis.self ??= globalThis;  // libsodium's randomness: self.crypto, as in a browser
const wasm = readFileSync(values.module.replace(/\.mjs$/, '.wasm'));
const js = readFileSync(values.module);
const party = await (await import(new URL(values.module, `file://${process.cwd()}/`).href)).default({ wasmBinary: wasm });
const vectors = JSON.parse(readFileSync(new URL('../../tests/web/link_vectors.json', import.meta.url)));
const config = readFileSync(values.config, 'utf8');
const reply = new Uint8Array(Buffer.from(vectors.reply, 'hex'));
const check = (v) => { if (v && v.error) throw new Error(v.error); return v; };
const repeat = Number(values.repeat);
const ms = [];
let frameBytes = 0;
for (let i = 0; i < repeat; ++i) {
  const t0 = performance.now();
  const info = check(party.sessionInfo(config));
  const records = check(party.roundRecords(config, 0, '1', -1));
  const link = new party.Link(vectors.session, info.digest, 0, vectors.party_secret, vectors.shuffler_public, -1);
  link.hello();
  check(link.finish(reply));
  frameBytes = check(link.seal(2, 0, records.width, records.count, records.payload)).length;
  link.delete();
  ms.push(performance.now() - t0);
}
ms.sort((a, b) => a - b);
const at = (q) => ms[Math.floor(q * ms.length)];
console.log(`browser's build (Node.js ${process.version}) party work: median ${(1000 * at(0.5)).toFixed(1)} us ` +
            `(p10 ${(1000 * at(0.1)).toFixed(1)}, p90 ${(1000 * at(0.9)).toFixed(1)}) over ${repeat} runs, submit frame ${frameBytes} bytes`);
console.log(`module: ${wasm.length} B WebAssembly (${gzipSync(wasm, { level: 9 }).length} B gzip), ` +
            `${js.length} B JavaScript (${gzipSync(js, { level: 9 }).length} B gzip)`);
