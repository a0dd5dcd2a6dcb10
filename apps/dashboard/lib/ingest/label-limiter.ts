/** Labels whose distinct values are capped. */
export type LabelName =
  | 'service'
  | 'instance'
  | 'server'
  | 'method'
  | 'tool'
  | 'outcome'
  | 'error_class'
  | 'error_type'
  | 'state'
  | 'variant';

/** What a label value becomes once its label has `maxValues` distinct values. */
export const OTHER = '_OTHER';
/** Label values are cut to this many characters. */
export const MAX_LABEL_LENGTH = 256;

/**
 * Caps the distinct values of each label: the first `maxValues` values seen (or already stored) are kept, later
 * ones become `_OTHER`, so 20,000 tool names cannot make every page and filter list megabytes. Values are also
 * cut to `MAX_LABEL_LENGTH`. `known` lists a label's values already stored (read once per label, after each
 * `reset`, which retention calls once old values are gone).
 */
export class LabelLimiter {
  private readonly values = new Map<LabelName, Set<string>>();

  constructor(
    private readonly maxValues: number,
    private readonly known: (label: LabelName) => Iterable<string>,
  ) {}

  admit(label: LabelName, raw: string): string {
    const value = raw.length > MAX_LABEL_LENGTH ? raw.slice(0, MAX_LABEL_LENGTH) : raw;
    if (value === '' || value === OTHER) return value;
    let set = this.values.get(label);
    if (!set) {
      set = new Set(this.known(label));
      set.delete('');
      set.delete(OTHER);
      this.values.set(label, set);
    }
    if (set.has(value)) return value;
    if (set.size >= this.maxValues) return OTHER;
    set.add(value);
    return value;
  }

  /** Forgets what it knows (after retention removed old values, or a rolled-back write). */
  reset(): void {
    this.values.clear();
  }
}
