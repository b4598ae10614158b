// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {JobEscrowBase} from "./JobEscrowBase.sol";

/// @title JobEscrowPayees
/// @notice The payees a submission names (docs/settlement.md, Defence 28): the nodes that joined a job, the bond of
///         each payee locked at the submission and given back with the submitter's when the round ends, and which
///         payee answers for its leaves.
abstract contract JobEscrowPayees is JobEscrowBase {
    /// @notice Most payees a submission may name (each has the job's bond locked until the round ends; every path
    ///         that ends a round unlocks them in a loop, which must fit in a block).
    uint256 public constant MAX_PAYEES = 256;

    /// @dev jobId => the payees its submission named, each with the job's bond locked until the round ends
    mapping(bytes32 => address[]) internal _payees;
    /// @dev jobId => payee => named by the current submission (answers for its leaves)
    mapping(bytes32 => mapping(address => bool)) internal _named;
    /// @dev jobId => node => 1 + the round it last joined (0: never): a submission of that round may name it as a
    ///      payee (locking the job's bond of it). A join is consent for one round: the work of a rejected round is done
    ///      again in the next, by whoever joins it.
    mapping(bytes32 => mapping(address => uint256)) internal _joinedRound;

    event JobJoined(bytes32 indexed jobId, address indexed node, uint256 round);

    error TooManyPayees(uint256 named, uint256 max);
    error PayeeNotJoined(address payee);

    /// @dev Locks the job's bond of each payee a submission names (`msg.sender`, the submitter, and repeats skipped):
    ///      each must have joined the job (`PayeeNotJoined`); the registry's `lock` checks its free stake.
    function _lockPayees(bytes32 jobId, address[] calldata payees, uint256 bond) internal {
        mapping(address => bool) storage named = _named[jobId];
        for (uint256 i; i < payees.length; ++i) {
            address p = payees[i];
            if (p == msg.sender || named[p]) continue;
            if (!_joinedNow(jobId, p)) revert PayeeNotJoined(p);
            registry.lock(p, bond);
            named[p] = true;
            _payees[jobId].push(p);
        }
    }

    /// @notice Whether `node` joined the job's current round (`joinJob`): a submission of it may name the node as a
    ///         payee. False for a job that does not exist.
    function joined(bytes32 jobId, address node) external view returns (bool) {
        return _jobs[jobId].status != Status.None && _joinedNow(jobId, node);
    }

    /// @dev Whether `node` joined the job's current round.
    function _joinedNow(bytes32 jobId, address node) internal view returns (bool) {
        return _joinedRound[jobId][node] == uint256(_jobs[jobId].rejections) + 1;
    }

    /// @dev Records `msg.sender`'s join of the job's current round (once per round; again is a no-op).
    function _join(bytes32 jobId, Job storage j) internal {
        uint256 mark = uint256(j.rejections) + 1;
        if (_joinedRound[jobId][msg.sender] == mark) return;
        _joinedRound[jobId][msg.sender] = mark;
        emit JobJoined(jobId, msg.sender, j.rejections);
    }

    /// @dev Ends a submission's locks: the submitter's bond and the bond of each payee it named.
    function _unlockBonds(bytes32 jobId, Job storage j) internal {
        uint256 bond = _bond(j);
        registry.unlock(j.submitter, bond);
        address[] storage named = _payees[jobId];
        for (uint256 i = named.length; i != 0; --i) {
            address p = named[i - 1];
            registry.unlock(p, bond);
            delete _named[jobId][p];
            named.pop();
        }
    }

    /// @dev Whether the payee of a leaf answers for it: the submission named it, so its bond is locked until the
    ///      round ends and it cannot withdraw before it is judged (attacks/ExitAfterSubmission.t.sol,
    ///      attacks/SockPuppetPayee.t.sol). A payee left out, or the submitter itself, is the submitter's fault.
    function _answerable(bytes32 jobId, address payee) internal view returns (bool) {
        return _named[jobId][payee];
    }
}
