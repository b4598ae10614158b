// SPDX-License-Identifier: MIT
pragma solidity ^0.8.24;

import {SumTree} from "../libraries/SumTree.sol";
import {GroupTree} from "../libraries/GroupTree.sol";
import {NodeRegistryBase} from "./NodeRegistryBase.sol";

/// @title NodeRegistryDraw
/// @notice The weighted verifier draw over the (GPU model, VRAM tier) groups (see NodeRegistry's notes).
abstract contract NodeRegistryDraw is NodeRegistryBase {
    using SumTree for SumTree.Tree;

    /// @dev The submitter's weight, taken out of the draw without touching the trees (the finds count its leaf W
    ///      less: SumTree.findExcluding, GroupTree.find): its group and
    ///      leaf, and its W when it is idle in a tier the job may use (else 0).
    struct Exclusion {
        uint256 group;
        uint256 tier;
        uint256 slot;
        uint256 w;
    }

    /// @notice Draws up to r.need distinct verifiers by weight (see contract notes) and marks them busy. Looks only
    ///         at the groups the job may use: the required model's tiers >= minVram, or every model's; finds as
    ///         many idle eligible nodes as exist, up to r.need (for identical hardware without a required model:
    ///         within the model of the first one drawn).
    /// @return drawn the drawn nodes; counter the next entropy-stream position; chosenModel the GPU model all
    ///         verifiers share (for identical-hardware or model-bound jobs; 0 otherwise).
    function draw(DrawRequest calldata r)
        external
        onlyEscrow
        returns (address[] memory drawn, uint32 counter, bytes32 chosenModel)
    {
        counter = r.counter;
        drawn = new address[](r.need);
        uint256 minTier = _minTier(r.minVram);
        uint256 m;
        if (r.gpuModel != bytes32(0)) {
            m = groupOf[r.gpuModel];
            chosenModel = r.gpuModel;
            if (m == 0) return (_trim(drawn, 0), counter, chosenModel);
        }
        if (minTier == TIER_COUNT) return (_trim(drawn, 0), counter, chosenModel);
        Exclusion memory ex;
        Node storage sub = _nodes[r.exclude];
        if (r.exclude != address(0) && sub.flags & F_KNOWN != 0 && sub.tier >= minTier) {
            ex = Exclusion(sub.group, sub.tier, sub.slot, _trees[_groupKey(sub.group, sub.tier)].leaf(sub.slot));
        }
        uint256 got;
        while (got < r.need) {
            address a;
            (a, counter) = _drawOne(r, minTier, m, ex, counter);
            if (a == address(0)) break;
            drawn[got++] = a;
            Node storage n = _nodes[a];
            n.flags |= F_BUSY;
            _syncNode(n); // out of the trees until released
            if (m == 0 && r.identical) {
                m = n.group;
                chosenModel = groupModels[m - 1];
            }
        }
        return (_trim(drawn, got), counter, chosenModel);
    }

    /// @dev One verifier: a weighted pick among the eligible groups' free weight (minus the submitter's), then the
    ///      model coin; at most maxDrawAttempts picks, the last one accepted. address(0) iff no free weight is left.
    function _drawOne(DrawRequest calldata r, uint256 minTier, uint256 m, Exclusion memory ex, uint32 counter)
        internal
        view
        returns (address a, uint32 next)
    {
        next = counter;
        for (uint256 attempt = 1;; ++attempt) {
            uint256 rnd = _rand(r.entropy, r.jobId, next);
            a = _pick(rnd, minTier, m, ex);
            if (a == address(0)) return (a, next); // nothing left: the stream position is not used
            ++next;
            if (r.modelId == bytes32(0) || attempt >= _maxDrawAttempts) return (a, next);
            // multiplier M: a node whose last model is the job's is always accepted, another with probability 1/2
            if (_nodes[a].lastModel == r.modelId || uint256(keccak256(abi.encode(rnd))) & 1 == 1) return (a, next);
        }
    }

    /// @dev A node with probability W / (free weight of the eligible groups, minus the submitter's): a tier by its
    ///      free weight (of model m, or of all models), a model in the tier (when m == 0), a node in the group. Each
    ///      level uses its own 85 bits of `rnd`.
    function _pick(uint256 rnd, uint256 minTier, uint256 m, Exclusion memory ex) internal view returns (address) {
        uint256 exTier = ex.w != 0 && (m == 0 || m == ex.group) ? ex.tier : TIER_COUNT;
        uint256 t = _pickTier(minTier, m, exTier, ex.w, rnd & MASK85);
        if (t == TIER_COUNT) return address(0);
        uint256 d = t == exTier ? ex.w : 0;
        if (m == 0) m = _pickModel(t, d, ex.group, (rnd >> 85) & MASK85);
        return _pickNode(m, t, m == ex.group ? d : 0, ex.slot, rnd >> 170);
    }

    /// @dev A model in tier t by its group's free weight (model exGroup counted d less). Returns the model id.
    function _pickModel(uint256 t, uint256 d, uint256 exGroup, uint256 x) internal view returns (uint256) {
        uint256 lv = _levels(_tierMeta, t);
        mapping(uint256 => uint256) storage tt = _tierTrees[t];
        return GroupTree.find(tt, lv, x % (GroupTree.total(tt, lv) - d), d == 0 ? 0 : exGroup - 1, d) + 1;
    }

    /// @dev A node of group (g, t) by its W (leaf exSlot counted d less).
    function _pickNode(uint256 g, uint256 t, uint256 d, uint256 exSlot, uint256 y) internal view returns (address) {
        uint256 key = _groupKey(g, t);
        SumTree.Tree storage gt = _trees[key];
        return _slotOwner[key][gt.findExcluding(y % (gt.total() - d), exSlot, d)];
    }

    /// @dev A tier >= minTier by its free weight: of all models (a GroupTree total per tier in use) or of model m
    ///      (its leaf in each tier it was ever in); tier exTier counts exW less. O(TIER_COUNT) reads at most.
    ///      TIER_COUNT when no free weight is left.
    function _pickTier(uint256 minTier, uint256 m, uint256 exTier, uint256 exW, uint256 x)
        internal
        view
        returns (uint256 t)
    {
        uint256 meta = _tierMeta;
        uint256 bits = (m == 0 ? meta : _modelTierBits[m]) & 0xffff;
        bits = bits >> minTier << minTier;
        if (bits == 0) return TIER_COUNT;
        uint256[16] memory w;
        uint256 sum;
        for (t = minTier; t < TIER_COUNT; ++t) {
            if (bits >> t & 1 == 0) continue;
            uint256 v = m == 0 ? GroupTree.total(_tierTrees[t], _levels(meta, t)) : GroupTree.get(_tierTrees[t], m - 1);
            if (t == exTier) v -= exW;
            w[t] = v;
            sum += v;
        }
        if (sum == 0) return TIER_COUNT;
        x %= sum;
        for (t = minTier;; ++t) {
            uint256 v = w[t];
            if (x < v) return t;
            x -= v;
        }
    }
}
