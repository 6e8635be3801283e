import type { FastifyReply } from 'fastify';
import { escapeHtml, htmlPage } from '../common/html';
import type { LoginProvider } from '../common/login-providers';

export interface LoginPageModel {
  csrfToken: string;
  next: string;
  /** Error of a failed attempt, or the reason of a forced logout; shown in the role="alert" element. */
  message?: string;
  providers: LoginProvider[];
}

/** The login form of SPEC §2/§13: labelled fields, a "Log in" button, one button per SSO method. */
export function renderLoginPage(model: LoginPageModel): string {
  const alert = model.message ? `<div class="alert" role="alert">${escapeHtml(model.message)}</div>` : '';
  const sso = model.providers.length
    ? '<section class="sso" aria-label="Single sign-on"><h2>Or log in with</h2><ul>' +
      model.providers
        .map((p) => `<li><a class="button" href="${escapeHtml(p.loginUrl)}${model.next ? `&amp;next=${encodeURIComponent(model.next)}` : ''}">Log in with ${escapeHtml(p.label)}</a></li>`)
        .join('') +
      '</ul></section>'
    : '';
  const body =
    '<main class="login"><h1>Automation Service</h1>' +
    alert +
    '<form method="post" action="/api/login/">' +
    `<input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(model.csrfToken)}">` +
    `<input type="hidden" name="next" value="${escapeHtml(model.next)}">` +
    '<label for="username">Username</label>' +
    `<input id="username" name="username" type="text" maxlength="150" autocomplete="username" autofocus required>` +
    '<label for="password">Password</label>' +
    '<input id="password" name="password" type="password" maxlength="8192" autocomplete="current-password" required>' +
    '<button type="submit">Log in</button>' +
    '</form>' +
    sso +
    '</main>';
  return htmlPage('Log in · Automation Service', body);
}

/** The login page again, with `status` (a refusal, the throttle, a directory out of reach, an expired second step). */
export function sendLoginPage(res: FastifyReply, status: number, model: LoginPageModel): void {
  res.code(status).type('text/html; charset=utf-8').send(renderLoginPage(model));
}
