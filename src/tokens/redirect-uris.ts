/** Grants that never send the browser back to the client, so need no redirect URI. */
const WITHOUT_REDIRECT = new Set(['password', 'client-credentials', 'device-code']);

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);

/** The registered redirect URIs of an application, as stored: space-separated, matched exactly. */
export function redirectUriList(value: string): string[] {
  return value.split(/\s+/).filter(Boolean);
}

/**
 * Problems with a `redirect_uris` value (RFC 6749 §3.1.2, RFC 9700 §2.1): each URI absolute, without
 * fragment or user information; https, or http only on a loopback address (native apps).
 */
export function redirectUriProblems(value: string, grantType: string): string[] {
  const uris = redirectUriList(value);
  if (!uris.length && !WITHOUT_REDIRECT.has(grantType)) return [`redirect_uris cannot be empty with grant_type ${grantType}`];
  const problems: string[] = [];
  for (const uri of uris) {
    let url: URL;
    try {
      url = new URL(uri);
    } catch {
      problems.push(`Enter a valid URL: ${uri}`);
      continue;
    }
    if (uri.includes('#')) problems.push(`Redirect URIs must not contain fragments: ${uri}`);
    else if (url.username || url.password) problems.push(`Redirect URIs must not contain user information: ${uri}`);
    else if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname))) {
      problems.push(`Redirect URIs must use https (http only on a loopback address): ${uri}`);
    }
  }
  return problems;
}
