import type { User } from '../users/user.entity';
import type { AuthorizationCode } from '../tokens/authorization-code.entity';
import type { DeviceCode } from '../tokens/device-code.entity';
import type { RefreshToken } from '../tokens/refresh-token.entity';

/**
 * The "user" the OAuth library carries from one model call to the next (it never looks inside):
 * the account, plus what the grant being redeemed tells the token it is about to save.
 */
export interface GrantUser {
  entity: User;
  /** Authorization-code grant: the code row, and the family its redemption won. */
  code?: AuthorizationCode;
  family?: string;
  /** Refresh grant: the token being rotated; the new one inherits its family and start. */
  refreshToken?: RefreshToken;
  /** Device grant: the approved code, redeemed in the transaction that saves the tokens. */
  deviceCode?: DeviceCode;
  /** Authorization request: whether it named a redirect URI (then the token request must repeat it). */
  redirectUriGiven?: boolean;
  /** Password grant: a login (SPEC §23's `login_succeeded`, written with the token), and the source that proved it. */
  passwordLogin?: string;
}
