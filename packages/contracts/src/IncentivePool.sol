// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {NodeRegistry} from "./NodeRegistry.sol";

/// @title IncentivePool
/// @notice The network's incentive, split among active nodes by a weighted sum of their three QoS scores
///         (docs/contracts.md, Incentives): share = (wR * R + wP * P + wB * B) / BPS, each score scaled by SCALE,
///         with R the VRAM score, P the timeout score and B the submission-speed score of the registry.
/// @dev Anyone funds the pool; each funding is streamed over `period` seconds (with what is left of the running one),
///      so a node earns in proportion to its share and to the time it held it: registering (or poking) just before a
///      funding earns nothing extra. Shares are recorded lazily: `poke(node)` settles what the node earned at its old
///      share and records its current one. A node whose share rose pokes itself; one whose share fell (worse QoS,
///      paused, exiting, kicked out) is poked by anyone, and every other node gains by doing it. All operations are
///      O(1): an accumulator of wei per share unit (`accPerShare`), one account word set per node.
contract IncentivePool {
    uint256 public constant BPS = 10_000;
    uint256 public constant SCALE = 1e6;
    /// @dev Fixed-point scale of `rate` and `accPerShare`.
    uint256 internal constant ACC = 1e18;
    uint256 internal constant MAX_TASK_SCORE = 2000;

    struct Account {
        uint256 share; // recorded share (<= SCALE)
        uint256 debt; // accPerShare when the share was last settled
        uint256 owed; // settled and not yet claimed, wei
    }

    NodeRegistry public immutable registry;
    uint256 public immutable weightR;
    uint256 public immutable weightP;
    uint256 public immutable weightB;
    uint256 public immutable period;

    /// @notice Streamed wei per second, scaled by 1e18.
    uint256 public rate;
    uint256 public periodEnd;
    uint256 public lastUpdate;
    /// @notice Wei per share unit earned since deployment, scaled by 1e18.
    uint256 public accPerShare;
    uint256 public totalShares;
    /// @notice Streamed while no node held a share (scaled by 1e18): added to the next funding.
    uint256 public unassigned;
    mapping(address => Account) internal _accounts;

    event Funded(address indexed from, uint256 amount, uint256 rate, uint256 periodEnd);
    event ShareUpdated(address indexed node, uint256 share, uint256 totalShares);
    event Claimed(address indexed node, uint256 amount);

    error InvalidWeights();
    error InvalidPeriod();
    error NoValue();
    error NothingToClaim();
    error TransferFailed();

    constructor(NodeRegistry registry_, uint256 wR, uint256 wP, uint256 wB, uint256 period_) {
        if (wR + wP + wB != BPS) revert InvalidWeights();
        if (period_ == 0) revert InvalidPeriod();
        registry = registry_;
        weightR = wR;
        weightP = wP;
        weightB = wB;
        period = period_;
        lastUpdate = block.timestamp;
    }

    /// @notice Adds `msg.value` to the stream. A funding of at least what is left of the running period starts a new
    ///         one: both go out over `period` seconds from now. A smaller one joins the running period and goes out by
    ///         its end, so fundings of a few wei cannot stretch a sponsor's week over the weeks after it.
    function fund() external payable {
        if (msg.value == 0) revert NoValue();
        _accrue();
        uint256 added = msg.value * ACC + unassigned;
        unassigned = 0;
        uint256 remaining = block.timestamp < periodEnd ? periodEnd - block.timestamp : 0;
        uint256 left = remaining * rate;
        if (added < left) {
            rate += added / remaining;
        } else {
            rate = (added + left) / period;
            periodEnd = block.timestamp + period;
        }
        emit Funded(msg.sender, msg.value, rate, periodEnd);
    }

    /// @notice Settles what `node` earned at its recorded share and records its current share.
    function poke(address node) public returns (uint256 share) {
        _accrue();
        Account storage a = _accounts[node];
        _settle(a);
        share = shareOf(node);
        totalShares = totalShares - a.share + share;
        a.share = share;
        emit ShareUpdated(node, share, totalShares);
    }

    /// @notice Pokes the caller and pays it everything it earned.
    function claim() external returns (uint256 amount) {
        poke(msg.sender);
        Account storage a = _accounts[msg.sender];
        amount = a.owed;
        if (amount == 0) revert NothingToClaim();
        a.owed = 0;
        (bool ok,) = msg.sender.call{value: amount}("");
        if (!ok) revert TransferFailed();
        emit Claimed(msg.sender, amount);
    }

    /// @notice The share `node` would hold now: 0 unless it is registered and neither exiting nor kicked out, nor
    ///         paused; else the weighted sum of R, P and B (each 0..SCALE).
    function shareOf(address node) public view returns (uint256) {
        NodeRegistry.NodeView memory v = registry.nodeInfo(node);
        // a node neither drawable nor busy is under minStake: no draw and no probe can score it, so its score would
        // stay frozen while it earns (attacks/ProbesAndShares.t.sol)
        if (!v.registered || v.paused || v.exiting || v.kickedOut || !(v.eligible || v.busy)) return 0;
        uint256 b = v.score * SCALE / MAX_TASK_SCORE;
        return (weightR * registry.vramScore(node) + weightP * registry.timeoutScore(node) + weightB * b) / BPS;
    }

    /// @notice A node's recorded share and what it has earned so far (settled or not, not yet claimed).
    function accountOf(address node) external view returns (uint256 share, uint256 earned) {
        Account storage a = _accounts[node];
        return (a.share, a.owed + a.share * (_accNow() - a.debt) / ACC);
    }

    /// @dev Wei (scaled by 1e18) streamed since the last update, up to the end of the stream.
    function _streamed() internal view returns (uint256) {
        uint256 t = block.timestamp < periodEnd ? block.timestamp : periodEnd;
        return t > lastUpdate ? (t - lastUpdate) * rate : 0;
    }

    function _accNow() internal view returns (uint256) {
        uint256 total = totalShares;
        return total == 0 ? accPerShare : accPerShare + _streamed() / total;
    }

    function _accrue() internal {
        uint256 streamed = _streamed();
        if (totalShares == 0) unassigned += streamed;
        else accPerShare += streamed / totalShares;
        lastUpdate = block.timestamp;
    }

    function _settle(Account storage a) internal {
        uint256 acc = accPerShare;
        a.owed += a.share * (acc - a.debt) / ACC;
        a.debt = acc;
    }
}
