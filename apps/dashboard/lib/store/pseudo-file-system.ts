import fs from 'node:fs';
import path from 'node:path';

/**
 * The kernel's pseudo file systems by their `statfs` magic number (linux/magic.h): they hold no regular files, so
 * no database, and some of them answer a recursive `mkdir` so that Node 24 never returns (`/proc/x`).
 */
const PSEUDO: ReadonlyMap<number, string> = new Map([
  [0x9fa0, 'procfs'],
  [0x62656572, 'sysfs'],
  [0x1cd1, 'devpts'],
  [0x27e0eb, 'cgroup'],
  [0x63677270, 'cgroup2'],
  [0x64626720, 'debugfs'],
  [0x74726163, 'tracefs'],
  [0x73636673, 'securityfs'],
  [0xf97cff8c, 'selinuxfs'],
  [0xcafe4a11, 'bpf'],
  [0x6165676c, 'pstore'],
  [0x62656570, 'configfs'],
  [0xde5e81e4, 'efivarfs'],
  [0x42494e4d, 'binfmt_misc'],
  [0x65735543, 'fusectl'],
  [0x19800202, 'mqueue'],
  [0x6e736673, 'nsfs'],
  [0x958458f6, 'hugetlbfs'],
  [0x0187, 'autofs'],
]);

/** The directory itself or its nearest ancestor that exists. */
export function nearestExisting(dir: string): string {
  let at = path.resolve(dir);
  while (!fs.existsSync(at) && path.dirname(at) !== at) at = path.dirname(at);
  return at;
}

/**
 * The name of the pseudo file system (`procfs`, `sysfs`, ...) `dir` is or would be created on, read with
 * `statfs` on its nearest existing ancestor; undefined for any other file system, or when it cannot be read
 * (creating the directory then says what is wrong).
 */
export function pseudoFileSystem(dir: string): string | undefined {
  try {
    return PSEUDO.get(fs.statfsSync(nearestExisting(dir)).type >>> 0);
  } catch {
    return undefined;
  }
}
