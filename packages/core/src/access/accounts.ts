/** The `code` of the sign-in refusal of a disabled account, so the sign-in page can tell it from a wrong password. */
export const ACCOUNT_DISABLED_CODE = "ACCOUNT_DISABLED";
export const DISABLED_ACCOUNT_SIGN_IN_MESSAGE = "This account is disabled; ask an admin to enable it.";
