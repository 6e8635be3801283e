import { FieldErrors } from '../common/errors';
import { z } from 'zod';
import { refuse } from '../common/validation';
import { SecretBox } from '../common/secret-box';
import { ENCRYPTED_PLACEHOLDER } from '../settings/setting-definition';

/** AWX's credential kinds, named as its UI names them; "machine" (SSH) is the default (SPEC §10). */
export const CREDENTIAL_TYPES = [
  'machine', 'source_control', 'vault', 'network', 'cloud', 'container_registry',
  'galaxy', 'insights', 'kubernetes', 'token', 'cryptography', 'external',
] as const;

export type InputValue = string | number | boolean;
export type Inputs = Record<string, InputValue>;

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const MAX_INPUTS = 64;
const MAX_NAME = 64;
/** Room for an 8192-bit private key with its certificate; MEDIUMTEXT holds any allowed total. */
const MAX_VALUE = 65536;

/**
 * Which inputs are secrets: SPEC §10's `password`, `ssh_key_data`, `become_password` and any
 * `*_secret`, plus the other secret inputs of AWX's built-in types (`ssh_key_unlock`,
 * `vault_password`, `authorize_password`, `security_token`, `token`, `secret`), generalised to
 * `*_password` and `*_token`. Sealing one input too many costs nothing; one too few leaks a secret.
 */
export function isSecretInput(name: string): boolean {
  const key = name.toLowerCase();
  return ['password', 'ssh_key_data', 'ssh_key_unlock', 'token', 'secret'].includes(key) || /_(secret|password|token)$/.test(key);
}

/** The first thing wrong with a dictionary of inputs, in the order AWX users have seen them reported. */
function inputsProblem(value: Record<string, unknown>): string | undefined {
  const entries = Object.entries(value);
  if (entries.length > MAX_INPUTS) return `Ensure this field has no more than ${MAX_INPUTS} inputs.`;
  for (const [name, item] of entries) {
    if (name.length > MAX_NAME || !NAME.test(name)) {
      return `Input names are letters, digits and "_", at most ${MAX_NAME} characters; "${name.slice(0, MAX_NAME)}" is not one.`;
    }
    if (isSecretInput(name) && typeof item !== 'string') return `Value of "${name}" must be a string.`;
    if (typeof item === 'string' && item.length > MAX_VALUE) return `Value of "${name}" must have no more than ${MAX_VALUE} characters.`;
    if (typeof item !== 'string' && typeof item !== 'boolean' && !(typeof item === 'number' && Number.isFinite(item))) {
      return `Value of "${name}" must be a string, a number or a boolean.`;
    }
  }
  return undefined;
}

/** A credential's `inputs`: an object of named scalar values; secrets must be strings. */
export const credentialInputs = z
  .record(z.string(), z.unknown())
  .superRefine((value, ctx) => {
    const problem = inputsProblem(value);
    if (problem) refuse(ctx, problem, value);
  })
  .transform((value) => value as Inputs);

/**
 * The inputs as stored: secrets sealed with SECRET_KEY (empty stays empty, as in AWX). A secret sent
 * back as "$encrypted$" keeps the stored value, so a client can PUT what it read.
 */
export function sealInputs(inputs: Inputs, stored: Inputs, box: SecretBox): Inputs {
  const sealed: Inputs = {};
  for (const [name, value] of Object.entries(inputs)) {
    if (!isSecretInput(name) || value === '') {
      sealed[name] = value;
    } else if (value === ENCRYPTED_PLACEHOLDER) {
      const kept = stored[name];
      if (typeof kept !== 'string' || !kept) {
        throw FieldErrors.of('inputs', `"${name}" has no stored value to keep; send the value itself.`);
      }
      sealed[name] = kept;
    } else {
      sealed[name] = box.encrypt(String(value));
    }
  }
  return sealed;
}

/** The inputs as the API shows them: every non-empty secret reads "$encrypted$". */
export function maskInputs(stored: Inputs): Inputs {
  const shown: Inputs = {};
  for (const [name, value] of Object.entries(stored)) {
    shown[name] = isSecretInput(name) && value !== '' ? ENCRYPTED_PLACEHOLDER : value;
  }
  return shown;
}

export function parseStoredInputs(text: string): Inputs {
  return text ? (JSON.parse(text) as Inputs) : {};
}
