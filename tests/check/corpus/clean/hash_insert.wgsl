// Open-addressing hash insert: a compare-exchange with a constant "empty" value, but every
// failed try moves to the next slot, so the loop walks the table rather than waiting on
// one word (bounded by the table, not by another workgroup).
const EMPTY = 0xffffffffu;
const MASK = 1023u;
@group(0) @binding(0) var<storage, read> keys_in: array<u32>;
@group(0) @binding(1) var<storage, read_write> table: array<atomic<u32>, 1024>;
@group(0) @binding(2) var<storage, read_write> counts: array<atomic<u32>, 1024>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) gid: vec3<u32>) {
  let key = keys_in[gid.x];
  var slot = (key * 2654435761u) & MASK;
  loop {
    let r = atomicCompareExchangeWeak(&table[slot], EMPTY, key);
    if (r.exchanged || r.old_value == key) {
      atomicAdd(&counts[slot], 1u);
      break;
    }
    slot = (slot + 1u) & MASK;
  }
}
