// The native secp256k1 binding ships no types of its own; only what lnswap and its bench use is declared.
declare module 'secp256k1' {
  const secp256k1: {
    ecdsaRecover(signature: Uint8Array, recoveryId: number, message: Uint8Array, compressed?: boolean): Uint8Array;
    ecdsaSign(message: Uint8Array, privateKey: Uint8Array): { signature: Uint8Array; recid: number };
    publicKeyCreate(privateKey: Uint8Array, compressed?: boolean): Uint8Array;
    privateKeyVerify(privateKey: Uint8Array): boolean;
    ecdsaVerify(signature: Uint8Array, message: Uint8Array, publicKey: Uint8Array): boolean;
    signatureNormalize(signature: Uint8Array): Uint8Array;
  };
  export default secp256k1;
}
