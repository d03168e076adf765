// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Test-only: deploys exactly the runtime code it is given, as any deployer can: a genuine contract's code with
/// bytes changed, immutables no constructor would write, or a minimal proxy's code.
contract RuntimeCodeDeployer {
    constructor(bytes memory runtimeCode) {
        assembly {
            return(add(runtimeCode, 0x20), mload(runtimeCode))
        }
    }
}
