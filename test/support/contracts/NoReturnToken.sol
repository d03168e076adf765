// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

import "./TestToken.sol";

/// Test-only: like USDT, transfer and transferFrom return nothing and revert on failure.
contract NoReturnToken is TestToken {
    function transfer(address to, uint256 value) external {
        move(msg.sender, to, value);
    }

    function transferFrom(address from, address to, uint256 value) external {
        spendAllowance(from, value);
        move(from, to, value);
    }
}
