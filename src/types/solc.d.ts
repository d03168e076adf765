// solc ships no types; only the two calls the contract compiler makes are declared.
declare module 'solc' {
  const solc: {
    compile(standardJsonInput: string): string;
    version(): string;
  };
  export default solc;
}
