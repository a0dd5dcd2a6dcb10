/**
 * The path (and query) of a URL as a redirect target that stays on this origin: `//evil.example`,
 * `/\evil.example` and any run of leading slashes or backslashes collapse to one `/`, so a browser can never
 * read the `Location` as another host.
 */
export function sameOriginPath(url: URL): string {
  const path = url.pathname.replace(/^[/\\]+/, '/');
  const safe = path.startsWith('/') ? path : `/${path}`;
  return `${safe}${url.search}`;
}
