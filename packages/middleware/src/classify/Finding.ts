import type { Classification } from './Classification.js';

/** What one classification stage decides: a classification without the message, which `classifyError` adds. */
export type Finding = Omit<Classification, 'message'>;

/** An entry of a built-in table: a finding before the stage that uses it names itself as the `source`. */
export type Verdict = Omit<Finding, 'source'>;
