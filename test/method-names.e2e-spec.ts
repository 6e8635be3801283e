import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, it } from 'node:test';
import ts from 'typescript';

/**
 * Issue 55's house rule: no module that serves every login method names one outside comments, so a new method
 * is one folder and one registration. Every string literal and template text of src/maps/, src/settings/ and
 * src/users/ (imports included: their paths are literals) is split into words; none may be a method's name.
 * Identifiers are not read (`ldapMapValue` is a name of a shape, not a rule about LDAP).
 */
const ROOT = join(__dirname, '..', '..');
const FOLDERS = ['src/maps', 'src/settings', 'src/users'];
/** The methods' accounts and families, those landed and those SPEC §25-§26 name. */
const METHODS = new Set(['ldap', 'radius', 'saml', 'oidc', 'tacacs', 'tacacsplus', 'github', 'google', 'azuread']);
/** AWX's own user field `ldap_dn` (SPEC §8, §14): part of every user's API shape and its column, whichever method fills it. */
const EXEMPT = new Set(['ldap_dn']);

function literalTexts(node: ts.Node, found: { line: number; text: string }[], file: ts.SourceFile): void {
  if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node) || ts.isTemplateHead(node) || ts.isTemplateMiddle(node) || ts.isTemplateTail(node)) {
    found.push({ line: file.getLineAndCharacterOfPosition(node.getStart(file)).line + 1, text: node.text });
  }
  ts.forEachChild(node, (child) => literalTexts(child, found, file));
}

/** `file:line: "literal"` for every literal under root's FOLDERS that names a method (unit tests left out). */
function methodNames(root: string): string[] {
  const out: string[] = [];
  for (const folder of FOLDERS) {
    let files: string[];
    try {
      files = readdirSync(join(root, folder), { recursive: true, encoding: 'utf8' });
    } catch {
      continue;
    }
    for (const name of files.filter((f) => f.endsWith('.ts') && !f.endsWith('.spec.ts')).sort()) {
      const path = `${folder}/${name.split('\\').join('/')}`;
      const source = ts.createSourceFile(path, readFileSync(join(root, path), 'utf8'), ts.ScriptTarget.Latest, true);
      const literals: { line: number; text: string }[] = [];
      literalTexts(source, literals, source);
      for (const { line, text } of literals) {
        // Words split at anything but a letter or digit (`AUTH_LDAP_SERVER_URI` is four), the exempt names left out.
        const words = [...EXEMPT].reduce((t, exempt) => t.split(exempt).join(' '), text.toLowerCase()).split(/[^a-z0-9]+/);
        if (words.some((w) => METHODS.has(w))) out.push(`${path}:${line}: ${JSON.stringify(text)}`);
      }
    }
  }
  return out;
}

describe('no login method is named where every method is served (issue 55)', () => {
  it('src/maps/, src/settings/ and src/users/ name none in a string, a template or an import', () => {
    assert.deepEqual(methodNames(ROOT), []);
  });

  it('catches each way of naming one in a fixture tree, and no comment, identifier, exempt field or longer word', () => {
    assert.deepEqual(methodNames(join(ROOT, 'test', 'fixtures', 'method-names')), [
      'src/maps/names-a-method.ts:2: "../ldap/ldap-settings"',
      'src/maps/names-a-method.ts:3: "radius"',
      'src/maps/names-a-method.ts:4: "saml:"',
      'src/maps/names-a-method.ts:5: "AUTH_LDAP_SERVER_URI"',
    ]);
  });
});
