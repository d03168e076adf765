// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import "./Reenterer.sol";
import "./TestToken.sol";

/// Test-only: a standard-looking ERC-20 that re-enters the swap contract with the armed calls from inside
/// transfer and transferFrom, before moving any balance.
contract ReenteringToken is TestToken, Reenterer {
    constructor(address target_) Reenterer(target_) {}

    function transfer(address to, uint256 value) external returns (bool) {
        replayArmedCalls();
        move(msg.sender, to, value);
        return true;
    }

    function transferFrom(address from, address to, uint256 value) external returns (bool) {
        replayArmedCalls();
        spendAllowance(from, value);
        move(from, to, value);
        return true;
    }
}
