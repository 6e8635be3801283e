import { existsSync, readFileSync } from 'node:fs';
import { rootCertificates } from 'node:tls';

/** Where Debian, RHEL, Alpine and SUSE keep the system's CA bundle. */
const SYSTEM_BUNDLES = [
  '/etc/ssl/certs/ca-certificates.crt',
  '/etc/pki/tls/certs/ca-bundle.crt',
  '/etc/ssl/cert.pem',
  '/etc/ssl/ca-bundle.pem',
];

/**
 * The CAs outgoing TLS trusts (SPEC §7: OpenID Connect's HTTPS; SPEC §14: LDAP directories, each adding its CA_CERT): Node's bundled roots, the system bundle, and `extraCaFile`, the
 * file named by NODE_EXTRA_CA_CERTS (the config's extraCaCertsFile: read per app, not only at process
 * start, so a test can point it at its own CA). Passing `ca` replaces Node's default store, hence the
 * three are joined.
 */
export function trustedCas(extraCaFile: string | undefined): string[] {
  const cas = [...rootCertificates];
  const system = SYSTEM_BUNDLES.find((path) => existsSync(path));
  if (system) cas.push(readFileSync(system, 'utf8'));
  if (extraCaFile && existsSync(extraCaFile)) cas.push(readFileSync(extraCaFile, 'utf8'));
  return cas;
}
