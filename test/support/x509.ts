import { createSign, generateKeyPairSync, KeyObject, randomBytes, X509Certificate } from 'node:crypto';

/** DER encoding, just enough for a self-signed X.509 v3 certificate (no openssl needed). */
function der(tag: number, content: Buffer): Buffer {
  const len = content.length;
  const header =
    len < 0x80 ? Buffer.from([tag, len]) : len < 0x100 ? Buffer.from([tag, 0x81, len]) : Buffer.from([tag, 0x82, len >> 8, len & 0xff]);
  return Buffer.concat([header, content]);
}
const seq = (...items: Buffer[]) => der(0x30, Buffer.concat(items));
const set = (...items: Buffer[]) => der(0x31, Buffer.concat(items));
const nul = () => Buffer.from([0x05, 0x00]);
const utf8 = (s: string) => der(0x0c, Buffer.from(s, 'utf8'));
const utcTime = (d: Date) => der(0x17, Buffer.from(d.toISOString().replace(/[-:T]/g, '').slice(2, 14) + 'Z'));

function oid(dotted: string): Buffer {
  const parts = dotted.split('.').map(Number);
  const bytes = [parts[0] * 40 + parts[1]];
  for (const part of parts.slice(2)) {
    const chunk = [part & 0x7f];
    for (let v = part >> 7; v > 0; v >>= 7) chunk.unshift((v & 0x7f) | 0x80);
    bytes.push(...chunk);
  }
  return der(0x06, Buffer.from(bytes));
}

function integer(value: Buffer): Buffer {
  return der(0x02, value[0] & 0x80 ? Buffer.concat([Buffer.from([0]), value]) : value);
}

export interface KeyAndCert {
  privateKeyPem: string;
  certPem: string;
  /** The certificate's base64 body, as AWX lets an admin paste it. */
  certBody: string;
  privateKey: KeyObject;
}

/** subjectAltName with IPv4 addresses (TLS clients match an IP host against these only). */
function subjectAltNames(ips: string[]): Buffer {
  const names = ips.map((ip) => der(0x87, Buffer.from(ip.split('.').map(Number))));
  return seq(oid('2.5.29.17'), der(0x04, seq(...names)));
}

/** The certificate a test signs: its subject, its key, who signs it, and whether it is a CA. */
interface CertificateRequest {
  commonName: string;
  days: number;
  ips?: string[];
  /** The issuer's name and key; absent: self-signed. */
  issuer?: KeyAndCert & { commonName: string };
  ca?: boolean;
}

const nameOf = (commonName: string) => seq(set(seq(oid('2.5.4.3'), utf8(commonName))));

function extension(id: string, value: Buffer, critical = false): Buffer {
  return seq(oid(id), ...(critical ? [Buffer.from([0x01, 0x01, 0xff])] : []), der(0x04, value));
}

function issue(request: CertificateRequest): KeyAndCert {
  const { privateKey, publicKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  const sha256WithRsa = seq(oid('1.2.840.113549.1.1.11'), nul());
  const now = Date.now();
  const extensions: Buffer[] = [];
  if (request.ips?.length) extensions.push(subjectAltNames(request.ips));
  if (request.ca) {
    extensions.push(extension('2.5.29.19', seq(Buffer.from([0x01, 0x01, 0xff])), true)); // basicConstraints cA
    extensions.push(extension('2.5.29.15', der(0x03, Buffer.from([0x01, 0x06])), true)); // keyUsage keyCertSign, cRLSign
  }
  const tbs = seq(
    der(0xa0, integer(Buffer.from([2]))), // v3
    integer(randomBytes(16).map((b, i) => (i === 0 ? (b & 0x7f) | 0x40 : b)) as Buffer), // positive, minimal DER
    sha256WithRsa,
    nameOf(request.issuer?.commonName ?? request.commonName),
    seq(utcTime(new Date(now - 60_000)), utcTime(new Date(now + request.days * 86400_000))),
    nameOf(request.commonName),
    publicKey.export({ type: 'spki', format: 'der' }),
    ...(extensions.length ? [der(0xa3, seq(...extensions))] : []),
  );
  const signature = createSign('sha256').update(tbs).sign(request.issuer?.privateKey ?? privateKey);
  const cert = seq(tbs, sha256WithRsa, der(0x03, Buffer.concat([Buffer.from([0]), signature])));
  const certBody = cert.toString('base64');
  const certPem = `-----BEGIN CERTIFICATE-----\n${certBody.match(/.{1,64}/g)!.join('\n')}\n-----END CERTIFICATE-----\n`;
  new X509Certificate(certPem); // fails loudly if the encoding above is wrong
  return { privateKeyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(), certPem, certBody, privateKey };
}

/** A fresh RSA key and a self-signed certificate (sha256WithRSAEncryption) for `commonName`. */
export function selfSignedCertificate(commonName: string, days = 365, opts: { ips?: string[] } = {}): KeyAndCert {
  return issue({ commonName, days, ips: opts.ips });
}

/** A certificate authority of a test's own: a self-signed CA certificate and its key. */
export function certificateAuthority(commonName: string, days = 365): KeyAndCert & { commonName: string } {
  return { ...issue({ commonName, days, ca: true }), commonName };
}

/** A server certificate signed by `ca`, for `commonName` and the given IP addresses. */
export function issuedCertificate(ca: KeyAndCert & { commonName: string }, commonName: string, opts: { ips?: string[]; days?: number } = {}): KeyAndCert {
  return issue({ commonName, days: opts.days ?? 365, ips: opts.ips, issuer: ca });
}
