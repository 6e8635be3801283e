import { DOMParser } from '@xmldom/xmldom';
import { inflateRawSync } from 'node:zlib';
import { SsoFailure } from '../sso-failure';

const PROTOCOL = 'urn:oasis:names:tc:SAML:2.0:protocol';
const ASSERTION = 'urn:oasis:names:tc:SAML:2.0:assertion';

/** A SAML message is a few kilobytes; anything inflating past this is refused before it is parsed. */
const MAX_MESSAGE_BYTES = 256 * 1024;

/** A SAML document must not carry a DTD: refused before any parser sees it (XXE, entity expansion). */
export function refuseDoctype(xml: string): void {
  if (/<!DOCTYPE|<!ENTITY/i.test(xml)) throw new SsoFailure('invalid_response', 'document type declaration');
}

/** The protocol fields of a SAML message's root element (Response, LogoutRequest, LogoutResponse). */
export interface SamlMessage {
  kind: string;
  id?: string;
  issueInstant?: string;
  destination?: string;
  inResponseTo?: string;
  notOnOrAfter?: string;
  issuer?: string;
  /** The top-level StatusCode of a response. */
  status?: string;
}

/**
 * Reads the root element of a SAML protocol message with xmldom, the parser node-saml verifies
 * signatures with (so both read the same document). Only the root's attributes and its direct
 * `Issuer` and `Status` children are read: what node-saml verified below them is read from its profile.
 */
export function readSamlMessage(xml: string): SamlMessage {
  refuseDoctype(xml);
  let failed = '';
  const doc = new DOMParser({
    errorHandler: {
      warning: () => undefined,
      error: (message: string) => (failed ||= message),
      fatalError: (message: string) => (failed ||= message),
    },
  }).parseFromString(xml, 'text/xml');
  const root = doc?.documentElement;
  if (failed || !root || root.namespaceURI !== PROTOCOL) throw new SsoFailure('invalid_response', `not a SAML protocol message${failed ? `: ${failed.slice(0, 100)}` : ''}`);
  const attr = (name: string) => (root.hasAttribute(name) ? root.getAttribute(name) ?? undefined : undefined);
  const children = Array.from(root.childNodes).filter((node): node is Element => node.nodeType === 1) as Element[];
  const issuer = children.find((node) => node.localName === 'Issuer' && node.namespaceURI === ASSERTION);
  const status = children.find((node) => node.localName === 'Status' && node.namespaceURI === PROTOCOL);
  const code = status ? Array.from(status.childNodes).find((node): node is Element => node.nodeType === 1 && (node as Element).localName === 'StatusCode') : undefined;
  return {
    kind: root.localName ?? '',
    id: attr('ID'),
    issueInstant: attr('IssueInstant'),
    destination: attr('Destination'),
    inResponseTo: attr('InResponseTo'),
    notOnOrAfter: attr('NotOnOrAfter'),
    issuer: issuer?.textContent?.trim(),
    status: code?.getAttribute('Value') ?? undefined,
  };
}

/** The XML of a message sent by the HTTP-Redirect binding (base64 of raw DEFLATE), size-capped. */
export function inflateRedirectMessage(value: string): string {
  try {
    return inflateRawSync(Buffer.from(value, 'base64'), { maxOutputLength: MAX_MESSAGE_BYTES }).toString('utf8');
  } catch {
    throw new SsoFailure('invalid_response', 'unreadable SAML message (not DEFLATE, or too large)');
  }
}

/** The XML of a message sent by the HTTP-POST binding (base64), size-capped by the body limit. */
export function decodePostMessage(value: string): string {
  return Buffer.from(value, 'base64').toString('utf8');
}
