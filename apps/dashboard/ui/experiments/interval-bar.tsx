import styles from './experiments.module.css';

/** A rate with its 95% interval, as a small bar over [0, 1]. */
export default function IntervalBar({ rate, low, high }: { rate: number; low: number; high: number }) {
  return (
    <span
      className={styles.ci}
      title={`95% interval ${(low * 100).toFixed(1)}% – ${(high * 100).toFixed(1)}%`}
    >
      <span className={styles.ciRange} style={{ left: `${low * 100}%`, width: `${(high - low) * 100}%` }} />
      <span className={styles.ciPoint} style={{ left: `calc(${rate * 100}% - 1px)` }} />
    </span>
  );
}
