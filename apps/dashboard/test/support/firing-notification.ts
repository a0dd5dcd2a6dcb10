import type { Notification } from '@/lib/alerts/notifier';

/** A firing alert's notification whose content no test looks at (the tests of where and how it is sent). */
export const firingNotification: Notification = {
  status: 'firing',
  startsAt: 0,
  entry: {
    id: 1,
    at: 0,
    key: 'k',
    source: 'rule',
    name: 'A',
    labels: {},
    state: 'firing',
    value: 0.5,
    summary: 's',
  },
};
