// Block reduce: one value per invocation combined into one for the workgroup, by a tree
// in workgroup memory (any BlockT, structs included: subgroup shuffles take no structs).
// ops/block_scan.py puts it in a preamble after the binding of BlockT, block_identity()
// and block_combine() (associative and commutative: the tree pairs t with t + s); the
// kernel defines WG, a power of two. Called by the whole workgroup in uniform control
// flow; a second call needs a workgroupBarrier() before it.

var<workgroup> block_reduce_scratch: array<BlockT, WG>;

// The combination of every invocation's value (the same in every invocation).
fn block_reduce(t: u32, v: BlockT) -> BlockT {
  block_reduce_scratch[t] = v;
  workgroupBarrier();
  for (var s = WG / 2u; s > 0u; s = s >> 1u) {
    if (t < s) {
      block_reduce_scratch[t] = block_combine(block_reduce_scratch[t], block_reduce_scratch[t + s]);
    }
    workgroupBarrier();
  }
  return block_reduce_scratch[0];
}
