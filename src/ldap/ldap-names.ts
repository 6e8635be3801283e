/**
 * The two escapings a username goes through on its way to a directory, and the DN parser that validates
 * settings and compares DNs. Written here, not taken from the client library, because they are the
 * security boundary of the feature: each is a few lines against its RFC and unit-tested on the RFC's own
 * examples (ldap-names.spec.ts).
 */

/**
 * RFC 4515 §3: a value inside a search filter. `*`, `(`, `)`, `\` and NUL are the characters the filter
 * grammar gives a meaning to; each becomes `\XX`. Everything else (UTF-8 included) may stand as it is.
 */
export function escapeFilterValue(value: string): string {
  return value.replace(/[\\*()\0]/g, (c) => '\\' + c.charCodeAt(0).toString(16).padStart(2, '0'));
}

/**
 * RFC 4514 §2.4: an attribute value inside a DN. `"`, `+`, `,`, `;`, `<`, `>`, `\` anywhere, `#` or a
 * space at the start, a space at the end, and NUL (as `\00`); `=` is escaped too (RFC 4514 allows it, and
 * older servers need it).
 */
export function escapeDnValue(value: string): string {
  let out = value.replace(/[\\"+,;<>=]/g, (c) => '\\' + c).replace(/\0/g, '\\00');
  if (out.startsWith('#') || out.startsWith(' ')) out = '\\' + out;
  if (out.endsWith(' ') && !out.endsWith('\\ ')) out = out.slice(0, -1) + '\\ ';
  return out;
}

/** `%(user)s` in a filter or DN template, as python-ldap's settings write it. */
export const USER_PLACEHOLDER = '%(user)s';

export function fillFilter(template: string, username: string): string {
  return template.split(USER_PLACEHOLDER).join(escapeFilterValue(username));
}

export function fillDnTemplate(template: string, username: string): string {
  return template.split(USER_PLACEHOLDER).join(escapeDnValue(username));
}

export interface AttributeValue {
  type: string;
  value: string;
}

const SPECIAL = '"+,;<>\\=# ';

/**
 * Parses a DN (RFC 4514, with the spaces around separators that RFC 1779 and Active Directory write):
 * its RDNs, each a list of attribute type and unescaped value. Throws on anything malformed.
 */
export function parseDn(dn: string): AttributeValue[][] {
  const rdns: AttributeValue[][] = [];
  if (dn.trim() === '') return rdns;
  let i = 0;
  let rdn: AttributeValue[] = [];
  const skipSpaces = () => {
    while (dn[i] === ' ') i++;
  };
  for (;;) {
    skipSpaces();
    const typeStart = i;
    while (i < dn.length && /[A-Za-z0-9.-]/.test(dn[i])) i++;
    const type = dn.slice(typeStart, i);
    if (!/^([A-Za-z][A-Za-z0-9-]*|\d+(\.\d+)*)$/.test(type)) throw new Error(`expected an attribute type at position ${typeStart + 1}`);
    skipSpaces();
    if (dn[i] !== '=') throw new Error(`expected "=" after "${type}"`);
    i++;
    skipSpaces();
    let value = '';
    if (dn[i] === '#') {
      const start = ++i;
      while (i < dn.length && /[0-9A-Fa-f]/.test(dn[i])) i++;
      const hex = dn.slice(start, i);
      if (!hex.length || hex.length % 2) throw new Error(`malformed hex value of "${type}"`);
      value = '#' + hex.toLowerCase();
    } else {
      const bytes: number[] = [];
      let trailingSpaces = 0;
      while (i < dn.length && dn[i] !== ',' && dn[i] !== '+' && dn[i] !== ';') {
        const c = dn[i];
        if (c === '\\') {
          const next = dn[i + 1];
          if (next !== undefined && /[0-9A-Fa-f]/.test(next) && /[0-9A-Fa-f]/.test(dn[i + 2] ?? '')) {
            bytes.push(parseInt(dn.slice(i + 1, i + 3), 16));
            i += 3;
          } else if (next !== undefined && SPECIAL.includes(next)) {
            bytes.push(next.charCodeAt(0));
            i += 2;
          } else {
            throw new Error(`bad escape in the value of "${type}"`);
          }
          trailingSpaces = 0;
          continue;
        }
        if (c === '"' || c === '<' || c === '>' || c === '\0') throw new Error(`unescaped ${JSON.stringify(c)} in the value of "${type}"`);
        trailingSpaces = c === ' ' ? trailingSpaces + 1 : 0;
        bytes.push(...Buffer.from(c, 'utf8'));
        i++;
      }
      // Unescaped trailing spaces are insignificant (RFC 4514 §3 escapes the ones that matter).
      if (trailingSpaces) bytes.splice(bytes.length - trailingSpaces, trailingSpaces);
      value = Buffer.from(bytes).toString('utf8');
      if (value === '') throw new Error(`empty value of "${type}"`);
    }
    rdn.push({ type, value });
    if (i >= dn.length) break;
    const sep = dn[i++];
    if (sep !== '+') {
      rdns.push(rdn);
      rdn = [];
    }
    if (i >= dn.length) throw new Error('the DN ends with a separator');
  }
  rdns.push(rdn);
  return rdns;
}

export function isDn(value: string): boolean {
  try {
    return parseDn(value).length > 0;
  } catch {
    return false;
  }
}

/**
 * A DN in one spelling for comparisons: types and values lower-cased (the naming attributes of both
 * OpenLDAP and Active Directory match without case), separators without spaces, multi-valued RDNs
 * sorted. `CN=Admins, OU=Groups,DC=corp` and `cn=admins,ou=groups,dc=corp` are the same group.
 * A string that does not parse is compared as it is, lower-cased.
 */
export function normalizeDn(dn: string): string {
  try {
    return parseDn(dn)
      .map((rdn) =>
        rdn
          .map(({ type, value }) => `${type.toLowerCase()}=${escapeDnValue(value.toLowerCase())}`)
          .sort()
          .join('+'),
      )
      .join(',');
  } catch {
    return dn.trim().toLowerCase();
  }
}

/** Whether `dn` is `base` or below it. */
export function isUnder(dn: string, base: string): boolean {
  const d = normalizeDn(dn);
  const b = normalizeDn(base);
  return b === '' || d === b || d.endsWith(',' + b);
}
