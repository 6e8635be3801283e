import { z } from 'zod';
import type { PasswordProof } from '../../../src/external-logins/external-method';
import { BackendAttempt, PasswordBackendUnavailable } from '../../../src/users/login-methods';

export const HTTP_CHECK = 'httpcheck';
/** Its answer while the endpoint cannot say (unreachable, 5xx, an answer it does not understand). */
export const HTTP_CHECK_UNAVAILABLE = 'The corporate login check is unavailable; try again later.';
const SOURCE = 'endpoint';

/** What the endpoint answers for a right password: `200 {"email", "groups"}`. */
const accepted = z.object({ email: z.string().max(254).optional(), groups: z.array(z.string().max(256)).max(1000).default([]) });

/**
 * The proof of an attempt (docs/architecture.md, "A new login method"): the corporate endpoint is asked
 * `POST {"username", "password"}`; 200 proves the user with the groups it names, 404 means it does not know the
 * name, any other 4xx is a wrong password, and no answer or a 5xx makes the login a 503 (uncounted).
 */
export async function checkPassword(url: string, attempt: BackendAttempt, note?: (line: string) => void): Promise<PasswordProof> {
  const unanswered = { status: null, groups: [] };
  if (!url) {
    note?.('HTTP_CHECK_URL is "": the check is off and no name is sent.');
    return { refused: 'off', source: null, explained: unanswered };
  }
  note?.(`POST ${url} for "${attempt.username}".`);
  let res: Response;
  try {
    const body = JSON.stringify({ username: attempt.username, password: attempt.password });
    res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, redirect: 'error', signal: AbortSignal.timeout(5000) });
  } catch {
    throw new PasswordBackendUnavailable(SOURCE, 'unreachable', HTTP_CHECK_UNAVAILABLE);
  }
  note?.(`It answered ${res.status}.`);
  if (res.status >= 500) throw new PasswordBackendUnavailable(SOURCE, `status ${res.status}`, HTTP_CHECK_UNAVAILABLE);
  if (res.status === 404) return { refused: 'unknown_user', source: null, explained: { status: 404, groups: [] } };
  if (res.status !== 200) return { refused: `answered ${res.status}`, source: SOURCE, explained: { status: res.status, groups: [] } };
  const answer = accepted.safeParse(await res.json().catch(() => null));
  if (!answer.success) throw new PasswordBackendUnavailable(SOURCE, 'an answer it does not understand', HTTP_CHECK_UNAVAILABLE);
  const { email, groups } = answer.data;
  return {
    source: SOURCE,
    explained: { status: 200, groups },
    proven: {
      account: HTTP_CHECK,
      source: { family: HTTP_CHECK, instance: null },
      username: attempt.username,
      fields: email === undefined ? {} : { email },
      claims: { username: attempt.username, email: email ?? null, groups, attributes: {} },
      vouchedBy: { endpoint: new URL(url).host },
    },
  };
}
