// bitcore-lib ships no types; only the script interpreter the tests verify spends with is declared.
declare module 'bitcore-lib' {
  interface BitcoreScript {
    toHex(): string;
  }
  interface BitcoreInput {
    readonly script: BitcoreScript;
    getWitnesses(): Buffer[] | null;
  }
  interface BitcoreTransaction {
    readonly inputs: BitcoreInput[];
  }
  interface BitcoreInterpreter {
    verify(
      scriptSig: BitcoreScript,
      scriptPubkey: BitcoreScript,
      tx: BitcoreTransaction,
      nin: number,
      flags: number,
      witness: Buffer[],
      satoshis: number,
    ): boolean;
    readonly errstr: string;
  }
  interface InterpreterClass {
    new (): BitcoreInterpreter;
    readonly SCRIPT_VERIFY_P2SH: number;
    readonly SCRIPT_VERIFY_STRICTENC: number;
    readonly SCRIPT_VERIFY_DERSIG: number;
    readonly SCRIPT_VERIFY_LOW_S: number;
    readonly SCRIPT_VERIFY_NULLDUMMY: number;
    readonly SCRIPT_VERIFY_CHECKLOCKTIMEVERIFY: number;
    readonly SCRIPT_VERIFY_CHECKSEQUENCEVERIFY: number;
    readonly SCRIPT_VERIFY_WITNESS: number;
    readonly SCRIPT_VERIFY_MINIMALIF: number;
    readonly SCRIPT_VERIFY_NULLFAIL: number;
  }
  const bitcore: {
    Transaction: new (hex: string) => BitcoreTransaction;
    Script: { fromHex(hex: string): BitcoreScript; Interpreter: InterpreterClass };
  };
  export default bitcore;
}
