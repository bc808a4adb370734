// node:fs plus a small fs.globSync for Node.js 20 (see node20-globsync.mjs). It supports
// what the conformance suite uses: '*', '?' and '**' path patterns (no braces or classes)
// matched against the files and directories under options.cwd; it returns relative paths.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export * from 'node:fs';
export default fs;

function toRegExp(glob) {
  let re = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i];
    if (c === '*' && glob[i + 1] === '*') {
      i++;
      if (glob[i + 1] === '/') {
        i++;
        re += '(?:.*/)?';
      } else {
        re += '.*';
      }
    } else if (c === '*') {
      re += '[^/]*';
    } else if (c === '?') {
      re += '[^/]';
    } else {
      re += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
    }
  }
  return new RegExp('^' + re + '$');
}

export function globSync(pattern, options = {}) {
  const cwd = options.cwd instanceof URL ? fileURLToPath(options.cwd) : String(options.cwd ?? process.cwd());
  const patterns = [].concat(pattern).map(toRegExp);
  let entries;
  try {
    entries = fs.readdirSync(cwd, { recursive: true });
  } catch {
    return [];
  }
  return entries
    .map((p) => String(p).split(path.sep).join('/'))
    .filter((p) => patterns.some((re) => re.test(p)));
}
