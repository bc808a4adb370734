// Lets the pinned MCP conformance suite (built for Node.js 22) run on Node.js 20, which
// lacks fs.globSync: `node --import ./node20-globsync.mjs node_modules/.../conformance/dist/index.js`.
// A resolve hook hands the suite's imports of 'fs' a module that adds globSync (node20-fs.mjs).
// On a Node.js that has fs.globSync nothing is registered.
import fs from 'node:fs';
import { register } from 'node:module';
import { isMainThread } from 'node:worker_threads';

const SHIM = new URL('./node20-fs.mjs', import.meta.url).href;
const SUITE = '/node_modules/@modelcontextprotocol/conformance/';

// the hooks themselves load on a worker thread: register only from the main one
if (isMainThread && typeof fs.globSync !== 'function') {
  register(import.meta.url);
}

/** Module resolve hook: the suite's 'fs' becomes the shim; everything else is untouched. */
export async function resolve(specifier, context, next) {
  if ((specifier === 'fs' || specifier === 'node:fs') && context.parentURL?.includes(SUITE)) {
    return { url: SHIM, shortCircuit: true };
  }
  return next(specifier, context);
}
