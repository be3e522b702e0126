import { sha256 } from "@noble/hashes/sha2.js";
import { bytesToHex } from "@noble/hashes/utils.js";

/**
 * SHA-256 (hex, lower case) of `message`, by @noble/hashes: audited, pure
 * JavaScript, no Node APIs (core has none) and synchronous (Web Crypto's digest
 * is not, while a content hash is needed inside synchronous record conversion).
 */
export function sha256Hex(message: Uint8Array): string {
  return bytesToHex(sha256(message));
}
