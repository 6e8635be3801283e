import { createSign, randomBytes } from 'node:crypto';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { deflateRawSync } from 'node:zlib';
import * as samlify from 'samlify';
import type { Browser } from './sso-browser';
import { KeyAndCert, selfSignedCertificate } from './x509';

// samlify validates XML against the SAML schemas through a plug-in (@authenio/samlify-node-xmllint),
// which is not installed. This IdP is the test's peer, not the system under test, so it skips the
// schema step; the service's own parser (node-saml) is what the tests exercise.
samlify.setSchemaValidator({ validate: async () => 'skipped' });

const SUCCESS = 'urn:oasis:names:tc:SAML:2.0:status:Success';
const RSA_SHA256 = 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256';
export const RSA_SHA1 = 'http://www.w3.org/2000/09/xmldsig#rsa-sha1';
const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';
const { SamlLib } = samlify;

/** Changes to a logout message this IdP sends (a LogoutRequest, or its LogoutResponse to ours), each breaking one check. */
export interface LogoutTamper {
  /** false: no signature at all (Redirect: no Signature parameter; POST: no ds:Signature). */
  sign?: boolean;
  signingKey?: KeyAndCert;
  /** Redirect binding only: the signature algorithm URI (signed with its hash). */
  sigAlg?: string;
  issuer?: string;
  /** null leaves the attribute out. */
  destination?: string | null;
  issueInstant?: Date;
  id?: string;
  inResponseTo?: string;
  status?: string;
  /** POST only: text replaced in the XML after it was signed. */
  afterSigning?: [string, string];
  doctype?: boolean;
}

/** A logout message as the browser carries it: a URL (HTTP-Redirect) or a form to POST (HTTP-POST). */
export type LogoutMessage = { binding: 'redirect'; url: string; id: string } | { binding: 'post'; url: string; form: Record<string, string>; id: string };

export interface SamlUser {
  nameId: string;
  attributes: Record<string, string | string[]>;
}

/** Changes to the next response, each breaking one property the service must check. */
export interface ResponseTamper {
  sign?: 'assertion' | 'response' | 'both' | 'none';
  signingKey?: KeyAndCert;
  audience?: string;
  recipient?: string;
  destination?: string | null;
  issuer?: string;
  inResponseTo?: string;
  /** The assertion's own SubjectConfirmationData/@InResponseTo: another request's id, or null to leave it out. */
  subjectInResponseTo?: string | null;
  notOnOrAfter?: Date;
  assertionId?: string;
  /** XML signature wrapping: a forged unsigned assertion next to (or around) the signed one. */
  wrap?: 'sibling' | 'nested';
  /** A DTD with an external entity, referenced from an attribute value. */
  doctype?: boolean;
  status?: string;
}

export interface PostedResponse {
  acs: string;
  SAMLResponse: string;
  RelayState: string;
  /** The response XML as sent (for tests that build on it). */
  xml: string;
}

function escapeXml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]!);
}

/**
 * A SAML 2.0 IdP built on samlify, on 127.0.0.1:<random port>, with a key and self-signed certificate
 * made by the test. It imports the service's SP metadata, accepts AuthnRequests by HTTP-Redirect
 * (verifying their signature when the SP signs), shows a login form, and answers with a signed
 * Response for the HTTP-POST binding, as a browser would carry it to the ACS.
 */
export class SamlIdp {
  readonly keys = selfSignedCertificate('test-idp');
  /** Requests the IdP received for `/xxe` (an XXE payload must never make the SP fetch it). */
  xxeFetches = 0;
  /** The SessionIndex of every Response this IdP issued, with its NameID (its sessions). */
  readonly issued: { nameId: string; sessionIndex: string }[] = [];
  /** The LogoutRequests the service sent to `sloUrl` (samlify verified their signature when the SP signs). */
  readonly logoutRequests: { id: string; nameID: string; sessionIndex?: string; relayState: string }[] = [];
  /** The LogoutResponses the service answered this IdP's LogoutRequests with (signature verified by samlify). */
  readonly logoutResponses: { inResponseTo?: string; status?: string; relayState: string }[] = [];
  /** How the IdP's next LogoutResponse (to the service's LogoutRequest) is broken, if at all. */
  logoutResponseTamper?: LogoutTamper;
  private idp!: ReturnType<typeof samlify.IdentityProvider>;
  private sp?: ReturnType<typeof samlify.ServiceProvider>;
  private readonly pending = new Map<string, { requestId: string; relayState: string; acs: string }>();
  private server!: http.Server;
  base = '';

  constructor(
    readonly entityId: string,
    private readonly users: Record<string, SamlUser>,
  ) {}

  static async start(opts: { entityId?: string; users: Record<string, SamlUser>; wantAuthnRequestsSigned?: boolean }): Promise<SamlIdp> {
    const idp = new SamlIdp(opts.entityId ?? 'https://idp.test/saml', opts.users);
    idp.server = http.createServer((req, res) => {
      idp.handle(req, res).catch((err) => {
        res.writeHead(400, { 'content-type': 'text/plain' });
        res.end(`IdP error: ${err?.message ?? err}`);
      });
    });
    await new Promise<void>((resolve) => idp.server.listen(0, '127.0.0.1', resolve));
    idp.base = `http://127.0.0.1:${(idp.server.address() as AddressInfo).port}`;
    idp.idp = samlify.IdentityProvider({
      entityID: idp.entityId,
      signingCert: idp.keys.certPem,
      privateKey: idp.keys.privateKeyPem,
      wantAuthnRequestsSigned: opts.wantAuthnRequestsSigned ?? false,
      // A service that signs its AuthnRequests signs its logout messages too: samlify then verifies them.
      wantLogoutRequestSigned: opts.wantAuthnRequestsSigned ?? false,
      wantLogoutResponseSigned: opts.wantAuthnRequestsSigned ?? false,
      singleSignOnService: [{ Binding: samlify.Constants.namespace.binding.redirect, Location: idp.ssoUrl }],
      singleLogoutService: [
        { Binding: samlify.Constants.namespace.binding.redirect, Location: idp.sloUrl },
        { Binding: samlify.Constants.namespace.binding.post, Location: idp.sloUrl },
      ],
      nameIDFormat: ['urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified'],
    });
    return idp;
  }

  get ssoUrl(): string {
    return `${this.base}/sso`;
  }

  /** The IdP's single logout service (the `slo_url` the service is configured with). */
  get sloUrl(): string {
    return `${this.base}/slo`;
  }

  /** The SessionIndex of the last Response issued. */
  get lastSessionIndex(): string {
    return this.issued[this.issued.length - 1].sessionIndex;
  }

  /** Trusts the service provider described by the service's own `/sso/metadata/saml/`. */
  useServiceProviderMetadata(xml: string): void {
    this.sp = samlify.ServiceProvider({ metadata: xml });
  }

  private async handle(req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
    const url = new URL(req.url ?? '/', this.base);
    if (url.pathname === '/xxe') {
      this.xxeFetches++;
      res.end('secret');
      return;
    }
    if (url.pathname === '/sso' && req.method === 'GET') {
      if (!this.sp) throw new Error('no SP metadata');
      const raw = (req.url ?? '').slice((req.url ?? '').indexOf('?') + 1);
      const octetString = raw.split('&').filter((part) => !part.startsWith('Signature=')).join('&');
      const parsed = await this.idp.parseLoginRequest(this.sp, 'redirect', { query: Object.fromEntries(url.searchParams), octetString });
      const ticket = randomBytes(12).toString('hex');
      const request = parsed.extract.request as { id: string; assertionConsumerServiceUrl?: string };
      this.pending.set(ticket, {
        requestId: request.id,
        relayState: url.searchParams.get('RelayState') ?? '',
        acs: request.assertionConsumerServiceUrl ?? String(this.sp.entityMeta.getAssertionConsumerService(samlify.Constants.namespace.binding.post)),
      });
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(`<form method="post" action="/login"><input type="hidden" name="ticket" value="${ticket}"><input name="username"><button>Sign in</button></form>`);
      return;
    }
    if (url.pathname === '/slo' && req.method === 'GET') return this.handleLogout(req, res, url);
    res.writeHead(404).end();
  }

  /**
   * The service's LogoutRequest (SP-initiated logout): parsed and its signature verified by samlify, recorded,
   * and answered with a signed LogoutResponse by redirect to the service. Or the service's LogoutResponse to
   * one of this IdP's LogoutRequests: verified and recorded.
   */
  private async handleLogout(req: http.IncomingMessage, res: http.ServerResponse, url: URL): Promise<void> {
    if (!this.sp) throw new Error('no SP metadata');
    const raw = (req.url ?? '').slice((req.url ?? '').indexOf('?') + 1);
    const octetString = raw.split('&').filter((part) => !part.startsWith('Signature=')).join('&');
    const query = Object.fromEntries(url.searchParams);
    const relayState = url.searchParams.get('RelayState') ?? '';
    if (url.searchParams.has('SAMLResponse')) {
      const parsed = await this.idp.parseLogoutResponse(this.sp, 'redirect', { query, octetString });
      const extract = parsed.extract as { response?: { inResponseTo?: string } };
      const status = /StatusCode[^>]*Value="([^"]+)"/.exec(parsed.samlContent)?.[1];
      this.logoutResponses.push({ inResponseTo: extract.response?.inResponseTo, status, relayState });
      res.writeHead(200, { 'content-type': 'text/plain' }).end('logged out at the IdP');
      return;
    }
    const parsed = await this.idp.parseLogoutRequest(this.sp, 'redirect', { query, octetString });
    const extract = parsed.extract as { request: { id: string }; nameID: string; sessionIndex?: string };
    this.logoutRequests.push({ id: extract.request.id, nameID: extract.nameID, sessionIndex: extract.sessionIndex || undefined, relayState });
    const tamper = this.logoutResponseTamper ?? {};
    this.logoutResponseTamper = undefined;
    const answer = this.logoutMessage('LogoutResponse', 'redirect', this.spSloUrl(), { inResponseTo: extract.request.id, ...tamper }, relayState);
    res.writeHead(302, { location: answer.url }).end();
  }

  private spSloUrl(binding: 'redirect' | 'post' = 'redirect'): string {
    const service = this.sp!.entityMeta.getSingleLogoutService(binding);
    if (typeof service !== 'string') throw new Error(`the SP metadata lists no single logout service for ${binding}`);
    return service;
  }

  /**
   * An IdP-initiated LogoutRequest for `nameId` (and `sessionIndex` when given) to the service's single logout
   * service, as the browser carries it on `binding`, signed unless tampered with.
   */
  logoutRequest(nameId: string, opts: { sessionIndex?: string; binding?: 'redirect' | 'post'; relayState?: string; tamper?: LogoutTamper } = {}): LogoutMessage {
    const binding = opts.binding ?? 'redirect';
    const body = `<saml:NameID Format="urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified">${escapeXml(nameId)}</saml:NameID>` +
      (opts.sessionIndex ? `<samlp:SessionIndex>${escapeXml(opts.sessionIndex)}</samlp:SessionIndex>` : '');
    return this.logoutMessage('LogoutRequest', binding, this.spSloUrl(binding), opts.tamper ?? {}, opts.relayState ?? '', body);
  }

  /** This IdP's LogoutResponse to the service's LogoutRequest `inResponseTo`, on `binding` (the IdP's own answer goes by redirect). */
  logoutResponse(inResponseTo: string, opts: { binding?: 'redirect' | 'post'; relayState?: string; tamper?: LogoutTamper } = {}): LogoutMessage {
    const binding = opts.binding ?? 'redirect';
    return this.logoutMessage('LogoutResponse', binding, this.spSloUrl(binding), { inResponseTo, ...opts.tamper }, opts.relayState ?? '');
  }

  /** A LogoutRequest or LogoutResponse from this IdP, encoded and signed for its binding. */
  private logoutMessage(kind: 'LogoutRequest' | 'LogoutResponse', binding: 'redirect' | 'post', target: string, tamper: LogoutTamper, relayState: string, body = ''): LogoutMessage {
    const id = tamper.id ?? `_${randomBytes(16).toString('hex')}`;
    const destination = tamper.destination === undefined ? target : tamper.destination;
    const attrs = [
      `xmlns:samlp="${PROTOCOL}"`, `xmlns:saml="${ASSERTION}"`, `ID="${escapeXml(id)}"`, 'Version="2.0"',
      `IssueInstant="${(tamper.issueInstant ?? new Date()).toISOString()}"`,
      destination === null ? '' : `Destination="${escapeXml(destination)}"`,
      tamper.inResponseTo ? `InResponseTo="${escapeXml(tamper.inResponseTo)}"` : '',
    ].filter(Boolean).join(' ');
    const status = kind === 'LogoutResponse' ? `<samlp:Status><samlp:StatusCode Value="${escapeXml(tamper.status ?? SUCCESS)}"/></samlp:Status>` : '';
    let xml = `<samlp:${kind} ${attrs}><saml:Issuer>${escapeXml(tamper.issuer ?? this.entityId)}</saml:Issuer>${body}${status}</samlp:${kind}>`;
    const keys = tamper.signingKey ?? this.keys;
    const param = kind === 'LogoutRequest' ? 'SAMLRequest' : 'SAMLResponse';
    if (binding === 'post') {
      if (tamper.sign !== false) {
        xml = SamlLib.constructSAMLSignature({
          privateKey: keys.privateKeyPem, signingCert: keys.certBody, signatureAlgorithm: RSA_SHA256, isBase64Output: false, rawSamlMessage: xml, isMessageSigned: true,
          signatureConfig: { prefix: 'ds', location: { reference: `/*[local-name(.)='${kind}']/*[local-name(.)='Issuer']`, action: 'after' } },
        });
      }
      if (tamper.afterSigning) xml = xml.replace(tamper.afterSigning[0], tamper.afterSigning[1]);
      if (tamper.doctype) xml = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "${this.base}/xxe">]>${xml}`;
      const form: Record<string, string> = { [param]: Buffer.from(xml).toString('base64') };
      if (relayState) form.RelayState = relayState;
      return { binding, url: target, form, id };
    }
    // SAML Bindings 3.4.4.1: the signature covers "SAMLRequest=…&RelayState=…&SigAlg=…", URL-encoded as sent.
    const sigAlg = tamper.sigAlg ?? RSA_SHA256;
    let query = `${param}=${encodeURIComponent(deflateRawSync(Buffer.from(xml)).toString('base64'))}`;
    if (relayState) query += `&RelayState=${encodeURIComponent(relayState)}`;
    if (tamper.sign !== false) {
      query += `&SigAlg=${encodeURIComponent(sigAlg)}`;
      const signature = createSign(sigAlg === RSA_SHA1 ? 'RSA-SHA1' : 'RSA-SHA256').update(query).sign(keys.privateKeyPem).toString('base64');
      query += `&Signature=${encodeURIComponent(signature)}`;
    }
    return { binding, url: `${target}${target.includes('?') ? '&' : '?'}${query}`, id };
  }

  /** The AuthnRequest id behind the login form at `pageHtml`'s ticket. */
  requestIdOf(pageHtml: string): string {
    return this.pending.get(/name="ticket" value="([0-9a-f]+)"/.exec(pageHtml)![1])!.requestId;
  }

  /**
   * The login form posted: the IdP authenticates `username` and builds the Response it would
   * auto-post to the ACS. Tampering changes one property of it.
   */
  respond(pageHtml: string, username: string, tamper: ResponseTamper = {}): PostedResponse {
    const ticket = /name="ticket" value="([0-9a-f]+)"/.exec(pageHtml)?.[1];
    const pending = ticket ? this.pending.get(ticket) : undefined;
    if (!pending) throw new Error('no pending AuthnRequest for this login form');
    const user = this.users[username];
    if (!user) throw new Error(`unknown IdP user ${username}`);
    const xml = this.buildResponse(pending, user, tamper);
    return { acs: pending.acs, SAMLResponse: Buffer.from(xml).toString('base64'), RelayState: pending.relayState, xml };
  }

  /** A Response for a request the IdP never received (IdP-initiated or forged InResponseTo). */
  unsolicited(username: string, acs: string, tamper: ResponseTamper = {}): PostedResponse {
    const pending = { requestId: tamper.inResponseTo ?? `_${randomBytes(16).toString('hex')}`, relayState: '', acs };
    const xml = this.buildResponse(pending, this.users[username], tamper);
    return { acs, SAMLResponse: Buffer.from(xml).toString('base64'), RelayState: '', xml };
  }

  private buildResponse(pending: { requestId: string; acs: string }, user: SamlUser, tamper: ResponseTamper): string {
    const sp = this.sp!;
    const now = new Date();
    const later = tamper.notOnOrAfter ?? new Date(now.getTime() + 5 * 60 * 1000);
    const assertionId = tamper.assertionId ?? `_${randomBytes(16).toString('hex')}`;
    const sessionIndex = `_s${randomBytes(8).toString('hex')}`;
    this.issued.push({ nameId: user.nameId, sessionIndex });
    const attributes = Object.entries(user.attributes)
      .map(([name, value]) => {
        const values = (Array.isArray(value) ? value : [value])
          .map((v) => `<saml:AttributeValue xsi:type="xs:string">${tamper.doctype ? '&xxe;' : escapeXml(v)}</saml:AttributeValue>`)
          .join('');
        return `<saml:Attribute Name="${escapeXml(name)}" NameFormat="urn:oasis:names:tc:SAML:2.0:attrname-format:uri">${values}</saml:Attribute>`;
      })
      .join('');
    let xml = SamlLib.replaceTagsByValue(SamlLib.defaultLoginResponseTemplate.context, {
      ID: `_${randomBytes(16).toString('hex')}`,
      AssertionID: assertionId,
      Destination: tamper.destination === undefined ? pending.acs : tamper.destination,
      Audience: tamper.audience ?? sp.entityMeta.getEntityID(),
      SubjectRecipient: tamper.recipient ?? pending.acs,
      Issuer: tamper.issuer ?? this.entityId,
      IssueInstant: now.toISOString(),
      StatusCode: tamper.status ?? SUCCESS,
      ConditionsNotBefore: new Date(now.getTime() - 1000).toISOString(),
      ConditionsNotOnOrAfter: later.toISOString(),
      SubjectConfirmationDataNotOnOrAfter: later.toISOString(),
      NameIDFormat: 'urn:oasis:names:tc:SAML:1.1:nameid-format:unspecified',
      NameID: user.nameId,
      InResponseTo: tamper.inResponseTo ?? pending.requestId,
      AuthnStatement: '@@AuthnStatement@@',
      AttributeStatement: '@@AttributeStatement@@',
    })
      // replaceTagsByValue escapes its values; these two are XML fragments.
      .replace('@@AuthnStatement@@', `<saml:AuthnStatement AuthnInstant="${now.toISOString()}" SessionIndex="${sessionIndex}"><saml:AuthnContext><saml:AuthnContextClassRef>urn:oasis:names:tc:SAML:2.0:ac:classes:PasswordProtectedTransport</saml:AuthnContextClassRef></saml:AuthnContext></saml:AuthnStatement>`)
      .replace('@@AttributeStatement@@', attributes ? `<saml:AttributeStatement>${attributes}</saml:AttributeStatement>` : '');
    if (tamper.subjectInResponseTo !== undefined) {
      xml = xml.replace(/(<saml:SubjectConfirmationData\b[^>]*?)\s+InResponseTo="[^"]*"/, (_, head: string) =>
        tamper.subjectInResponseTo === null ? head : `${head} InResponseTo="${escapeXml(tamper.subjectInResponseTo!)}"`,
      );
    }
    const sign = tamper.sign ?? 'both';
    const keys = tamper.signingKey ?? this.keys;
    const config = { privateKey: keys.privateKeyPem, signingCert: keys.certBody, signatureAlgorithm: 'http://www.w3.org/2001/04/xmldsig-more#rsa-sha256', isBase64Output: false };
    if (sign === 'assertion' || sign === 'both') {
      xml = SamlLib.constructSAMLSignature({
        ...config,
        rawSamlMessage: xml,
        referenceTagXPath: "/*[local-name(.)='Response']/*[local-name(.)='Assertion']",
        signatureConfig: { prefix: 'ds', location: { reference: "/*[local-name(.)='Response']/*[local-name(.)='Assertion']/*[local-name(.)='Issuer']", action: 'after' } },
      });
    }
    if (tamper.wrap) xml = wrapSignedAssertion(xml, tamper.wrap);
    if (sign === 'response' || sign === 'both') {
      xml = SamlLib.constructSAMLSignature({
        ...config,
        rawSamlMessage: xml,
        isMessageSigned: true,
        signatureConfig: { prefix: 'ds', location: { reference: "/*[local-name(.)='Response']/*[local-name(.)='Issuer']", action: 'after' } },
      });
    }
    if (tamper.doctype) xml = `<?xml version="1.0"?><!DOCTYPE r [<!ENTITY xxe SYSTEM "${this.base}/xxe">]>${xml}`;
    return xml;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/**
 * XML signature wrapping (XSW): keep the IdP's signed assertion (so a signature still verifies
 * somewhere in the document) and add a forged, unsigned assertion for another subject, either as
 * the Response's first assertion ("sibling") or as the Response's only assertion with the signed one
 * tucked inside it ("nested").
 */
function wrapSignedAssertion(xml: string, mode: 'sibling' | 'nested'): string {
  const start = xml.indexOf('<saml:Assertion');
  const end = xml.indexOf('</saml:Assertion>') + '</saml:Assertion>'.length;
  const signed = xml.slice(start, end);
  const forged = signed
    .replace(/<ds:Signature[\s\S]*<\/ds:Signature>/, '')
    .replace(/ID="[^"]+"/, `ID="_forged${randomBytes(8).toString('hex')}"`)
    .replace(/<saml:NameID([^>]*)>[^<]*<\/saml:NameID>/, '<saml:NameID$1>admin</saml:NameID>')
    .replace(/(<saml:Attribute Name="[^"]*0\.9\.2342\.19200300\.100\.1\.1"[^>]*><saml:AttributeValue[^>]*>)[^<]*/, '$1admin');
  const replacement =
    mode === 'sibling' ? forged + signed : forged.replace(/<\/saml:Assertion>$/, `${signed}</saml:Assertion>`);
  return xml.slice(0, start) + replacement + xml.slice(end);
}
