/*
 * Text for Slack's message markup ("mrkdwn"). Slack reads `<...>` as a control sequence: `<!channel>` pings a
 * whole channel, `<https://evil.example|Re-authenticate>` is a link disguised as text, `<@U123>` mentions a
 * user. Any text that comes from telemetry or Alertmanager (server names, labels, summaries) is escaped as
 * Slack documents it (`&`, `<`, `>`), so these stay inert and show as typed.
 */

/** `text` with Slack's three control characters escaped. */
export const slackEscape = (text: string): string =>
  text.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;');

/** A link `<url|text>` whose url and text cannot close or split it. */
export const slackLink = (url: string, text: string): string =>
  `<${slackEscape(url).replaceAll('|', '%7C')}|${slackEscape(text)}>`;
