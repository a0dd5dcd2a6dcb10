import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Root } from '@modelcontextprotocol/sdk/types.js';

/** How many roots one server's entry may list. */
const MAX_ROOTS = 64;

/**
 * The `roots` of a gateway server's entry: the roots the gateway answers that server's `roots/list` with itself
 * (a shared upstream's roots are the operator's, no one host's). Each is a `file://` URI, a path (absolute, or
 * relative to the folder of the config file `base`), or `{ "uri", "name" }`. `fail` names what is wrong.
 */
export function parseRoots(value: unknown, base: string, fail: (what: string) => never): Root[] {
  if (!Array.isArray(value) || value.length === 0 || value.length > MAX_ROOTS) {
    fail(`must be an array of 1 to ${MAX_ROOTS} roots (paths, file:// URIs or { "uri", "name" })`);
  }
  return (value as unknown[]).map((root, i) => parseRoot(root, base, (what) => fail(`root ${i}: ${what}`)));
}

function parseRoot(root: unknown, base: string, fail: (what: string) => never): Root {
  if (typeof root === 'string') return { uri: toUri(root, base, fail) };
  if (typeof root !== 'object' || root === null || Array.isArray(root)) {
    return fail('must be a path, a file:// URI or an object { "uri", "name" }');
  }
  const { uri, name, ...rest } = root as Record<string, unknown>;
  const unknown = Object.keys(rest)[0];
  if (unknown !== undefined) fail(`"${unknown}" is not a known key (known: uri, name)`);
  if (typeof uri !== 'string' || !uri.startsWith('file://')) fail('"uri" must be a file:// URI');
  if (name !== undefined && (typeof name !== 'string' || name === ''))
    fail('"name" must be a non-empty string');
  return { uri: toUri(uri as string, base, fail), ...(name === undefined ? {} : { name: name as string }) };
}

/** A `file://` URI as it is (checked), or a path made one. */
function toUri(text: string, base: string, fail: (what: string) => never): string {
  if (text === '') return fail('must not be empty');
  if (text.startsWith('file://')) {
    if (!URL.canParse(text)) fail(`"${text}" is not a valid URI`);
    return text;
  }
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text)) fail(`"${text}": only file:// roots exist`);
  return pathToFileURL(isAbsolute(text) ? text : resolve(base, text)).href;
}
