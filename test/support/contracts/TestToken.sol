// SPDX-License-Identifier: MIT
pragma solidity 0.8.37;

/// Test-only ERC-20 bookkeeping shared by the hostile tokens: anyone may mint, and each token decides what its
/// transfer functions return.
abstract contract TestToken {
    mapping(address => uint256) public balanceOf;
    mapping(address => mapping(address => uint256)) public allowance;

    function mint(address to, uint256 value) external {
        balanceOf[to] += value;
    }

    function approve(address spender, uint256 value) external returns (bool) {
        allowance[msg.sender][spender] = value;
        return true;
    }

    function spendAllowance(address from, uint256 value) internal {
        require(allowance[from][msg.sender] >= value, "allowance");
        allowance[from][msg.sender] -= value;
    }

    function move(address from, address to, uint256 value) internal {
        require(balanceOf[from] >= value, "balance");
        balanceOf[from] -= value;
        balanceOf[to] += value;
    }
}
