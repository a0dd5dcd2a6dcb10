import { type Comparison, MIN_RETRIES } from '@/lib/data/experiments';
import styles from './experiments.module.css';

export const VERDICT_LABEL = {
  better: 'Better',
  worse: 'Worse',
  not_significant: 'Not yet significant',
  insufficient: 'Not enough data',
} as const;

/** Each candidate's plain verdict against the control. */
export default function Verdicts({ comparisons }: { comparisons: Comparison[] }) {
  return (
    <div data-testid="experiment-verdicts">
      {comparisons.map((c) => (
        <div key={c.candidate} className={`${styles.verdict} ${styles[c.verdict]}`} data-verdict={c.verdict}>
          <span className={styles.tag}>{VERDICT_LABEL[c.verdict]}</span>
          <span>{c.text}</span>
        </div>
      ))}
      <p className="muted" style={{ fontSize: 12, margin: '6px 0 0' }}>
        Two-sided two-proportion z-tests at 5% on call success rate (success / all calls) and retry efficiency
        (successful / all retries, from {MIN_RETRIES} retries per variant); &quot;more calls&quot; is the
        sample size for 80% power at the observed difference, at the current split.
      </p>
    </div>
  );
}
