/*
 * Browser script of the second login step (SPEC §16): "Use a security key" asks the browser for an
 * assertion with the options the page carries (through @simplewebauthn/browser, /static/webauthn.js),
 * puts it in the form's `credential` field and submits the form.
 */

(function secondStep() {
  const button = document.getElementById('use-security-key') as HTMLButtonElement | null;
  const form = document.getElementById('second-step') as HTMLFormElement | null;
  const field = document.getElementById('credential') as HTMLInputElement | null;
  if (!button || !form || !field) return;

  function say(text: string): void {
    let alert = document.querySelector<HTMLElement>('[role="alert"]');
    if (!alert) {
      alert = document.createElement('div');
      alert.className = 'alert';
      alert.setAttribute('role', 'alert');
      form!.before(alert);
    }
    alert.textContent = text;
  }

  async function useKey(): Promise<void> {
    button!.disabled = true;
    try {
      const credential = await window.SimpleWebAuthnBrowser.startAuthentication({ optionsJSON: JSON.parse(button!.dataset.options ?? '{}') });
      field!.value = JSON.stringify(credential);
      form!.submit();
    } catch (err) {
      say(`The security key did not answer: ${(err as Error).message}`);
      button!.disabled = false;
    }
  }

  button.addEventListener('click', () => void useKey());
})();
