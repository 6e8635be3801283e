/*
 * Browser script of the login page's click-through (SPEC §22): the "Log in" button and every SSO entry
 * stay disabled until "I acknowledge the notice" is ticked, and are disabled again when it is cleared.
 * The server refuses a login without the tick whatever this script does.
 */

(function loginConsent() {
  const box = document.getElementById('consent') as HTMLInputElement | null;
  if (!box) return;
  const submit = document.querySelector<HTMLButtonElement>('form button[type="submit"]');
  const entries = Array.from(document.querySelectorAll<HTMLAnchorElement>('.sso a[data-href]'));

  function follow(): void {
    const on = box!.checked;
    if (submit) submit.disabled = !on;
    for (const entry of entries) {
      if (on) {
        entry.href = entry.dataset.href ?? '';
        entry.removeAttribute('aria-disabled');
      } else {
        entry.removeAttribute('href');
        entry.setAttribute('aria-disabled', 'true');
      }
    }
  }

  box.checked = false;
  box.addEventListener('change', follow);
  follow();
})();
