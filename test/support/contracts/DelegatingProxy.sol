// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Test-only: a proxy that runs another contract's code on its own storage, as upgradeable proxies do; whoever
/// may change `implementation` may change what a funding does after the wallet checked it.
contract DelegatingProxy {
    address public implementation;

    constructor(address implementation_) {
        implementation = implementation_;
    }

    receive() external payable {}

    fallback() external payable {
        address target = implementation;
        assembly {
            calldatacopy(0, 0, calldatasize())
            let ok := delegatecall(gas(), target, 0, calldatasize(), 0, 0)
            returndatacopy(0, 0, returndatasize())
            switch ok
            case 0 {
                revert(0, returndatasize())
            }
            default {
                return(0, returndatasize())
            }
        }
    }
}
