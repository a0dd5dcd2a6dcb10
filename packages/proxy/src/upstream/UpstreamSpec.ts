/** Where an upstream MCP server is: a stdio command the proxy runs as a child, or a Streamable HTTP URL. */
export type UpstreamSpec =
  | {
      readonly kind: 'stdio';
      readonly command: string;
      readonly args: readonly string[];
      /** Added to the proxy's own environment (a wrapped server sees what the host gave the wrapper). */
      readonly env?: Readonly<Record<string, string>>;
      readonly cwd?: string;
    }
  | {
      readonly kind: 'http';
      readonly url: string;
      /** Sent with every HTTP request (`Authorization`, API keys...). */
      readonly headers?: Readonly<Record<string, string>>;
    };

/** A short description of an upstream for messages: its command line or its URL (without credentials). */
export function describeUpstream(spec: UpstreamSpec): string {
  if (spec.kind === 'stdio') return [spec.command, ...spec.args].join(' ');
  try {
    const url = new URL(spec.url);
    url.username = '';
    url.password = '';
    url.search = '';
    return url.toString();
  } catch {
    return 'an invalid URL';
  }
}
