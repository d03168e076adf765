// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import "./Reenterer.sol";

/// Test-only: a funder or claimer that, when paid ether, re-enters the swap contract with the armed calls.
contract ReenteringAccount is Reenterer {
    constructor(address target_) payable Reenterer(target_) {}

    receive() external payable {
        replayArmedCalls();
    }
}
