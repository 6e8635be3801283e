import type { FastifyReply } from 'fastify';
import { escapeHtml, htmlPage } from '../common/html';
import type { LoginProvider } from '../common/login-providers';

/** SPEC §22: the `ui` settings as the page shows them. */
export interface LoginNotice {
  text: string;
  /** A data URL (`CUSTOM_LOGO`), or "". */
  logo: string;
  consentRequired: boolean;
}

export interface LoginPageModel {
  csrfToken: string;
  next: string;
  /** Error of a failed attempt, or the reason of a forced logout; shown in the role="alert" element. */
  message?: string;
  providers: LoginProvider[];
  notice: LoginNotice;
}

/** The form field and value of SPEC §22's click-through. */
export const CONSENT_FIELD = 'consent';
export const CONSENT_ACCEPTED = 'accepted';
export const CONSENT_MISSING = 'You must acknowledge the notice to log in.';

/** The login form of SPEC §2/§13: labelled fields, a "Log in" button, one button per SSO method; §22's notice and logo. */
export function renderLoginPage(model: LoginPageModel): string {
  const { notice } = model;
  const consent = notice.consentRequired && notice.text !== '';
  const alert = model.message ? `<div class="alert" role="alert">${escapeHtml(model.message)}</div>` : '';
  const logo = notice.logo ? `<img class="login-logo" alt="Logo" src="${escapeHtml(notice.logo)}">` : '';
  // Text only (SPEC §22): escaped, its line breaks kept by the stylesheet (white-space: pre-wrap).
  const text = notice.text ? `<section class="login-notice" role="region" aria-label="Notice"><p>${escapeHtml(notice.text)}</p></section>` : '';
  const body =
    `<main class="login">${logo}<h1>Automation Service</h1>` +
    text +
    alert +
    '<form method="post" action="/api/login/">' +
    `<input type="hidden" name="csrfmiddlewaretoken" value="${escapeHtml(model.csrfToken)}">` +
    `<input type="hidden" name="next" value="${escapeHtml(model.next)}">` +
    (consent ? consentBox() : '') +
    '<label for="username">Username</label>' +
    `<input id="username" name="username" type="text" maxlength="150" autocomplete="username" autofocus required>` +
    '<label for="password">Password</label>' +
    '<input id="password" name="password" type="password" maxlength="8192" autocomplete="current-password" required>' +
    `<button type="submit"${consent ? ' disabled' : ''}>Log in</button>` +
    '</form>' +
    ssoSection(model, consent) +
    '</main>';
  return htmlPage('Log in · Automation Service', body, { scripts: consent ? ['/static/login.js'] : [] });
}

/** Unchecked at every load: autocomplete="off" keeps a browser from restoring a tick on back or reload. */
function consentBox(): string {
  return (
    '<div class="login-consent">' +
    `<input id="consent" name="${CONSENT_FIELD}" type="checkbox" value="${CONSENT_ACCEPTED}" autocomplete="off">` +
    '<label for="consent">I acknowledge the notice</label></div>'
  );
}

/**
 * One entry per SSO method. Under the click-through each carries `consent=accepted` (the start refuses it
 * otherwise) and is a link without `href`, `aria-disabled`, until login.js sees the box ticked.
 */
function ssoSection(model: LoginPageModel, consent: boolean): string {
  if (!model.providers.length) return '';
  const entry = (p: LoginProvider) => {
    const url = `${p.loginUrl}${consent ? `&${CONSENT_FIELD}=${CONSENT_ACCEPTED}` : ''}${model.next ? `&next=${encodeURIComponent(model.next)}` : ''}`;
    const target = consent ? `aria-disabled="true" data-href="${escapeHtml(url)}"` : `href="${escapeHtml(url)}"`;
    return `<li><a class="button" ${target}>Log in with ${escapeHtml(p.label)}</a></li>`;
  };
  return `<section class="sso" aria-label="Single sign-on"><h2>Or log in with</h2><ul>${model.providers.map(entry).join('')}</ul></section>`;
}

/** The login page again, with `status` (a refusal, the throttle, a directory out of reach, an expired second step). */
export function sendLoginPage(res: FastifyReply, status: number, model: LoginPageModel): void {
  res.code(status).type('text/html; charset=utf-8').send(renderLoginPage(model));
}
