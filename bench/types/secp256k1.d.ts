// The native secp256k1 binding arrives with bolt11 and ships no types of its own; only what the bench uses is declared.
declare module 'secp256k1' {
  export function ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
  export function publicKeyCreate(privateKey: Uint8Array, compressed?: boolean): Uint8Array;
  export function privateKeyVerify(privateKey: Uint8Array): boolean;
}
