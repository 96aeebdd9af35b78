// Loads the browser's build in Node.js for the tests: the module named by SHUFFLEMPC_WEB_MODULE
// (build/web/shufflempc-party.mjs), its .wasm read from beside it.
import { readFileSync } from 'node:fs';

export async function loadParty() {
  const path = process.env.SHUFFLEMPC_WEB_MODULE;
  if (!path) throw new Error('SHUFFLEMPC_WEB_MODULE: the path of the built shufflempc-party.mjs');
  // libsodium's randomness in a browser is self.crypto.getRandomValues; Node.js has the same
  // function as globalThis.crypto but no `self`.
  globalThis.self ??= globalThis;
  const create = (await import(path)).default;
  return create({ wasmBinary: readFileSync(path.replace(/\.mjs$/, '.wasm')) });
}

export const hex = (bytes) => Buffer.from(bytes).toString('hex');
export const unhex = (text) => new Uint8Array(Buffer.from(text, 'hex'));
