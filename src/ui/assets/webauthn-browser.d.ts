/** What /static/webauthn.js (@simplewebauthn/browser's own browser bundle) puts on the page. */
interface SimpleWebAuthnBrowserApi {
  startRegistration(opts: { optionsJSON: unknown }): Promise<unknown>;
  startAuthentication(opts: { optionsJSON: unknown }): Promise<unknown>;
}

interface Window {
  SimpleWebAuthnBrowser: SimpleWebAuthnBrowserApi;
}
